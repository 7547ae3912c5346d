package persistence

import (
	"time"
)

// GroupKey identifies a consumer group of one logical stream.
type GroupKey struct {
	StreamPrefix  string
	ConsumerGroup string
}

// String renders the key as "prefix/group" for logs and error messages.
func (k GroupKey) String() string { return k.StreamPrefix + "/" + k.ConsumerGroup }

// Less orders keys by StreamPrefix, then ConsumerGroup (the ListGroups order).
func (k GroupKey) Less(o GroupKey) bool {
	if k.StreamPrefix != o.StreamPrefix {
		return k.StreamPrefix < o.StreamPrefix
	}
	return k.ConsumerGroup < o.ConsumerGroup
}

// StreamRecord is one logical stream: its shard set and routing metadata.
type StreamRecord struct {
	StreamPrefix    string
	ShardCount      int
	MetadataVersion int64
	CreatedAt       time.Time
	UpdatedAt       time.Time
	CreatedBy       string
	Reason          string
	// Extra is opaque JSON owned by the service (migrations / resharding
	// state). The store keeps it byte for byte.
	Extra []byte
	// Revision is set by the store: 1 after CreateStream, +1 per UpdateStream.
	// It is ignored on input.
	Revision int64
}

// GroupSnapshot is the stored state of one group.
type GroupSnapshot struct {
	Key GroupKey
	// Revision is 0 for a group never saved; each successful SaveGroup adds 1.
	Revision int64
	// ActivationEpoch is the epoch of the latest activation (0 if never activated).
	ActivationEpoch int64
	// Owner is the node that holds the latest activation ("" once released).
	Owner string
	// Fenced (Activate only) lists earlier owners this activation fenced that
	// were not yet told (see Store.Activate).
	Fenced []string
	// Handover (Activate only) is what the previous activation stored when it
	// gave the group up (Nodes.ReleaseActivation), if that activation was the
	// directly previous one (ActivationEpoch−1): nil after a crash, a fenced
	// activation, a release without hand-over or a delete. Activate consumes
	// it: no later activation sees it again.
	Handover []byte
	// HandoverAge (with Handover) is the time from the release to this
	// Activate, measured on the store's clock, so that the nodes need not
	// agree on the wall clock.
	HandoverAge time.Duration
	// Meta is opaque (the service serializes its group meta as JSON); nil for
	// a group never saved.
	Meta []byte
	// Members maps memberId to an opaque member record. Never nil in a
	// snapshot returned by a store.
	Members map[string][]byte
	// Events is the opaque recent-events record (the group's latest
	// fencings and expiries, for monitoring) last saved; nil if none.
	Events []byte
}

// GroupChange is one atomic write to a group.
type GroupChange struct {
	// Meta replaces the stored meta; nil leaves it unchanged.
	Meta []byte
	// PutMembers inserts or replaces member records.
	PutMembers map[string][]byte
	// DeleteMembers removes member records (missing ids are ignored). A
	// memberId in both PutMembers and DeleteMembers is deleted.
	DeleteMembers []string
	// Events replaces the stored recent-events record (opaque); nil leaves
	// it unchanged. It rides on the write that records the fencing or
	// expiry, so it costs no write of its own.
	Events []byte
}

// IsEmpty reports whether the change writes nothing.
func (c GroupChange) IsEmpty() bool {
	return c.Meta == nil && len(c.PutMembers) == 0 && len(c.DeleteMembers) == 0 && c.Events == nil
}

// ShardInfo is what Redis reports about one shard stream and one consumer
// group on it.
type ShardInfo struct {
	Shard     int
	StreamKey string
	// Exists is false when the shard stream key does not exist; the other
	// fields are then zero (Lag -1).
	Exists bool
	// Length is XLEN of the stream.
	Length int64
	// LastGeneratedID is the stream's last-generated-id ("0-0" when empty).
	LastGeneratedID string
	// GroupExists is false when the consumer group is not on this shard.
	GroupExists bool
	// Pending is the group's PEL size.
	Pending int64
	// Lag is the number of entries not yet delivered to the group; -1 when
	// Redis cannot tell (entries deleted, or Redis < 7).
	Lag int64
	// LastDeliveredID is the group's last-delivered-id.
	LastDeliveredID string
	// EntriesRead is the group's entries-read counter; -1 when unknown.
	EntriesRead int64
}
