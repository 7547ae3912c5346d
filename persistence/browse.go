package persistence

import (
	"errors"
	"fmt"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// ShardOffsets is what an operator sees of one shard stream and one consumer
// group on it: ShardInfo plus the group's Redis consumers and the memory the
// stream key takes. Read-only; nothing here is coordinator state.
type ShardOffsets struct {
	ShardInfo
	// Consumers are the group's Redis consumers on this shard (XINFO
	// CONSUMERS), sorted by name; empty when the group is not on the shard.
	Consumers []ShardConsumer
	// MemoryUsage is MEMORY USAGE of the stream key in bytes; -1 when the
	// key does not exist or the server refuses the command (managed Redis
	// services may disable it).
	MemoryUsage int64
}

// ShardConsumer is one Redis consumer of a consumer group on one shard.
type ShardConsumer struct {
	Name    string
	Pending int64
	// IdleMs is the time since the consumer's last attempted interaction.
	IdleMs int64
}

// StreamEntry is one entry of a shard stream.
type StreamEntry struct {
	ID string
	// Fields are the entry's field/value pairs. Redis allows a field twice
	// in one entry; the last value wins here.
	Fields map[string]string
}

// ErrInvalidStreamID: a cursor that is not "-" nor a stream entry id.
var ErrInvalidStreamID = errors.New("persistence: invalid stream id")

// ErrWrongKeyType: a shard's key exists but holds something other than a
// stream (someone wrote to it by hand).
var ErrWrongKeyType = errors.New("persistence: key holds no stream")

// CheckStreamCursor accepts "-" (the start of the stream) or a stream entry
// id "ms" or "ms-seq" (protocol.IsStreamCursor), the forms ReadShard takes as
// its exclusive cursor.
func CheckStreamCursor(id string) error {
	if !protocol.IsStreamCursor(id) {
		return fmt.Errorf("%q is not a stream entry id (ms or ms-seq) nor \"-\": %w", id, ErrInvalidStreamID)
	}
	return nil
}
