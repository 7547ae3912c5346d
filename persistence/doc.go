// Package persistence is the coordinator's persistence plugin: the Store
// interface for durable stream and group state, the Provisioner interface for
// the Redis Streams data plane, and the sentinel errors both return.
//
// # Contract
//
// Every method takes a context and returns an error that wraps one of the
// sentinels (ErrNotFound, ErrExists, ErrConflict, ErrFenced, ErrUnavailable,
// ErrUnsupportedFormat) when one applies; test with errors.Is. A cancelled or
// expired context yields an error that wraps both ErrUnavailable and the
// context error.
//
// ErrUnavailable means the outcome is unknown: a write may have been applied.
// The caller must not tell anyone about it (persist before tell) and should
// reload (Activate again) before trusting its in-memory state.
//
// # Groups, activations and fencing
//
// A group actor activation calls Activate once. The store atomically bumps
// the group's activation epoch and returns the stored snapshot; from then on
// every SaveGroup/DeleteGroup carries that epoch. A write with any older
// epoch returns ErrFenced, so at most one activation can change a group at a
// time (SPEC §3 invariant 6). Within an activation, writes are serialized by a
// revision compare-and-set (ErrConflict).
//
// Activation epochs and revisions never decrease, also across DeleteGroup:
// deleting a group removes its meta and members but keeps both counters, so a
// re-created group continues from where the deleted one stopped (invariant 4).
//
// Snapshots carry opaque bytes (Meta, member records, StreamRecord.Extra):
// the service owns their encoding and its versioning; the store keeps them
// byte for byte.
//
// # Streams
//
// A StreamRecord is the shard set and routing metadata of one stream prefix.
// UpdateStream is a revision compare-and-set that also refuses to lower
// MetadataVersion (ErrConflict), so the routing version never regresses.
//
// # Shard fences
//
// Fences (part of Provisioner, on the data plane) are the per-(shard stream,
// group) records members check before they acknowledge or claim: written by
// the group actor before any state write that changes a shard's holder. They
// live beside the streams (protocol.FenceKey), not under the store's key
// prefix, and are not fenced by activation epochs: a fence only ever names a
// holder some activation decided on, or nobody.
//
// Implementations: persistence/redisstore (Redis, Lua compare-and-set,
// Cluster hash tags), persistence/memstore (in memory, for unit tests). The
// conformance suite persistence/persistencetest runs against both.
package persistence
