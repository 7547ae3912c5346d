// Package redisstore is the Redis implementation of persistence.Store and
// persistence.Provisioner (go-redis v9, any redis.UniversalClient: single
// node, Sentinel or Cluster).
//
// # Key layout
//
// All keys live under a configurable key prefix P (default "rsc"). Names are
// escaped (see escape): bytes outside [A-Za-z0-9._:-] become %XX, so a name
// can never close a hash tag, forge a separator or collide with another name.
//
//	P:{s:<prefix>}:stream          HASH  stream record: format, prefix, shardCount,
//	                                     metadataVersion, createdAt, updatedAt (RFC 3339,
//	                                     UTC), createdBy, reason, extra (absent = nil),
//	                                     revision
//	P:{g:<prefix>|<group>}:meta    HASH  group record: format, activation, revision,
//	                                     live (1 = exists, 0 = deleted), owner
//	                                     ("" = released), fenced (newline-separated
//	                                     earlier owners not yet told of a takeover),
//	                                     meta (absent = nil), prefix, group; handover,
//	                                     handoverEpoch, handoverSec, handoverUsec (the
//	                                     last release's hand-over, its epoch and Redis
//	                                     TIME; absent when none); events (recent
//	                                     fencings and expiries, JSON; absent = none)
//	P:{g:<prefix>|<group>}:members HASH  memberId (raw) -> member record blob
//	P:streams                      SET   raw stream prefixes (index)
//	P:groups                       ZSET  "<prefix>|<group>" escaped, score 0 (index,
//	                                     range-queried by prefix with ZRANGEBYLEX)
//	P:live                         ZSET  "<prefix>|<group>" of groups with live members,
//	                                     score = activation epoch that marked it
//	P:{n}:instance                 HASH  instance marker: id (random), createdAt (ms)
//	P:{n}:node:<nodeId/incarnation> HASH node record: renews, takeovers; PEXPIRE ttl
//
// The {…} hash tag puts a group's meta and members keys in one Redis Cluster
// slot, so one Lua script can check and write both atomically. The index keys
// live in other slots and are therefore maintained outside the scripts: they
// are a superset (an entry is added before the record is created and never
// removed), and List* filter out entries whose record does not exist or is
// deleted. P:live is a superset too (marked before a write can make a group
// occupied, unmarked only by an activation at least as new as the mark). The
// node records and the instance marker share the {n} tag, so a node renewal
// is one script.
//
// # Writes
//
// Every write is one Lua script (EVALSHA, falling back to EVAL after a
// script-cache flush) that checks format, activation epoch and revision and
// applies the change in the same atomic step. Reads of a group use
// MULTI/EXEC over its two keys. The format field (currently 1) lets a later
// release migrate the stored layout; a record with another format is refused
// with persistence.ErrUnsupportedFormat rather than misread.
//
// # Errors
//
// Network errors, timeouts, a closed client and Redis replies that mean "try
// later" (LOADING, CLUSTERDOWN, TRYAGAIN, MASTERDOWN, READONLY, BUSY,
// NOREPLICAS) map to persistence.ErrUnavailable; a cancelled context maps to
// ErrUnavailable wrapping the context error.
package redisstore
