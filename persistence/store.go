package persistence

import "context"

// Store is the persistence plugin of the coordinator: the durable state of
// streams and groups. Every method takes a context and returns an error;
// errors wrap the sentinels in errors.go. Implementations are safe for
// concurrent use.
//
// Fencing: Activate hands out a strictly increasing activation epoch per
// group; SaveGroup and DeleteGroup succeed only for the latest epoch, so a
// stale activation (partitioned node, duplicate grain) can never overwrite
// the state written by a newer one.
type Store interface {
	// CreateStream stores a new stream record with Revision 1. ErrExists if
	// the prefix is already stored.
	CreateStream(ctx context.Context, rec StreamRecord) (StreamRecord, error)
	// GetStream returns the stored record. ErrNotFound if absent.
	GetStream(ctx context.Context, streamPrefix string) (StreamRecord, error)
	// ListStreams returns every stream, sorted by StreamPrefix.
	ListStreams(ctx context.Context) ([]StreamRecord, error)
	// UpdateStream replaces the record iff its stored revision equals
	// expectedRevision, and returns it with the new revision. ErrConflict if
	// the revision differs or rec.MetadataVersion is lower than the stored
	// one; ErrNotFound if the stream does not exist. CreatedAt/CreatedBy are
	// kept from the stored record.
	UpdateStream(ctx context.Context, rec StreamRecord, expectedRevision int64) (StreamRecord, error)
	// DeleteStream removes the stream record iff its stored revision equals
	// expectedRevision (ErrConflict otherwise; ErrNotFound if absent). It
	// touches nothing else: the caller checks that no shard and no group
	// is left first. A prefix deleted can be created again (Revision 1).
	DeleteStream(ctx context.Context, streamPrefix string, expectedRevision int64) error

	// Activate takes the group for a new activation: atomically bumps the
	// activation epoch (fencing every older one), records owner, and returns
	// the stored snapshot (empty Members, nil Meta for a group never saved).
	// Snapshot.Fenced lists the previous owners (other than owner) that may
	// still answer for the group: the caller must NotifyTakeover each before
	// it answers anyone (then ClearTakeover).
	Activate(ctx context.Context, key GroupKey, owner string) (GroupSnapshot, error)
	// SaveGroup applies change atomically iff the stored activation epoch ==
	// activationEpoch (else ErrFenced) and revision == expectedRevision (else
	// ErrConflict); returns the new revision (expectedRevision+1). Fencing is
	// checked before the revision. ErrNotFound if the group was never
	// activated or was deleted (re-activate first). The shell never saves an
	// empty change; stores accept one and still bump the revision.
	SaveGroup(ctx context.Context, key GroupKey, activationEpoch, expectedRevision int64, change GroupChange) (int64, error)
	// CheckActivation confirms, with one read and no write, that
	// activationEpoch is still the group's latest activation: nil if so,
	// ErrFenced if a newer activation exists or the group was deleted
	// (also ErrBehind if the stored epoch is older or missing: data lost),
	// ErrUnavailable if the store cannot answer. A group actor calls it when
	// its node's renewal saw a takeover announced (Nodes.NotifyTakeover): a
	// steady-state group writes nothing, so this is how a stale activation
	// learns it must stop answering.
	CheckActivation(ctx context.Context, key GroupKey, activationEpoch int64) error
	// LoadGroup reads the group without taking it (no epoch bump).
	// ErrNotFound if the group was never activated, or was deleted and not
	// activated since.
	LoadGroup(ctx context.Context, key GroupKey) (GroupSnapshot, error)
	// ListGroups lists groups that hold saved state or an activation and were
	// not deleted since, for one stream ("" = all streams), sorted by
	// (StreamPrefix, ConsumerGroup).
	ListGroups(ctx context.Context, streamPrefix string) ([]GroupKey, error)
	// DeleteGroup removes meta and members, fenced like SaveGroup. The
	// activation counter is kept so epochs never regress after re-creation;
	// after DeleteGroup, LoadGroup returns ErrNotFound and ListGroups omits
	// the group until the next Activate. ErrNotFound if the group is unknown.
	DeleteGroup(ctx context.Context, key GroupKey, activationEpoch int64) error

	Nodes
	Reshards

	// Ping checks that the store answers. ErrUnavailable otherwise.
	Ping(ctx context.Context) error
	// Close releases resources the store owns (not a client passed in).
	Close() error
}

// Provisioner does the Redis Streams data-plane set-up the coordinator needs
// before routing or assigning. Shard stream keys are "{prefix}:{i}".
type Provisioner interface {
	// EnsureStreams makes sure shard streams {prefix}:{i} exist for i in
	// [from,to) (empty stream; no data lost if it exists).
	EnsureStreams(ctx context.Context, streamPrefix string, from, to int) error
	// EnsureGroup creates the Redis consumer group `group` on every shard in
	// [from,to) reading from the start ("0"), MKSTREAM; an existing group is
	// success and is left untouched.
	EnsureGroup(ctx context.Context, streamPrefix, group string, from, to int) error
	// EnsureGroupOnExisting is EnsureGroup for shards that may have been
	// retired (a scale-in's removed shards): it never creates a stream, and a
	// shard stream that does not exist is skipped. Re-creating a retired
	// stream would let a late producer's XADD … NOMKSTREAM succeed again.
	EnsureGroupOnExisting(ctx context.Context, streamPrefix, group string, from, to int) error
	// ShardInfo reports, for one shard: exists, length, last-generated-id,
	// and for the group: pending count, lag (-1 unknown), last-delivered-id.
	ShardInfo(ctx context.Context, streamPrefix, group string, shard int) (ShardInfo, error)
	// ShardOffsets reports, for each shard in shards (in that order), what
	// ShardInfo does plus the group's Redis consumers and the stream key's
	// memory usage: the operator's offsets view. A missing shard stream is
	// reported with Exists false, not as an error.
	ShardOffsets(ctx context.Context, streamPrefix, group string, shards []int) ([]ShardOffsets, error)
	// ReadShard returns up to count entries of shard stream {prefix}:{shard}
	// with ids strictly after `after` ("-" = from the start), oldest first
	// (XRANGE). more reports whether entries past the last one returned
	// existed at the time of the read. A missing stream reads as empty.
	// after must pass CheckStreamCursor (else ErrInvalidStreamID); count ≥ 1.
	ReadShard(ctx context.Context, streamPrefix string, shard int, after string, count int) (entries []StreamEntry, more bool, err error)

	// Fences: the shard fences live on the data plane, beside the streams.
	Fences
	// Retirer: retiring drained shards after a scale-in.
	Retirer
}
