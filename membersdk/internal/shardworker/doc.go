// Package shardworker is the consumer's shard worker: one per owned shard,
// it holds the shard's fence, settles unconfirmed acknowledgements, claims
// what is pending (XAUTOCLAIM) and deletes dead consumer names, reads new
// entries, runs the handler on them in lanes, acknowledges each read with
// one ownership-checked, fenced XACK, dead-letters entries that failed too
// often, and stops on revoke (draining) or kill (at once). What it needs of
// the consumer comes in a Host.
//
// It may import the standard library, go-redis, membersdk/protocol and
// membersdk/internal/{fence,retry,shard} only.
package shardworker
