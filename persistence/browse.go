package persistence

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
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

// CheckStreamCursor accepts "-" (the start of the stream) or a stream entry
// id "ms" or "ms-seq" (decimal, each fitting an unsigned 64-bit integer), the
// forms ReadShard takes as its exclusive cursor.
func CheckStreamCursor(id string) error {
	if id == "-" {
		return nil
	}
	ms, seq, hasSeq := strings.Cut(id, "-")
	if !decimalU64(ms) || (hasSeq && !decimalU64(seq)) {
		return fmt.Errorf("%q is not a stream entry id (ms or ms-seq) nor \"-\": %w", id, ErrInvalidStreamID)
	}
	return nil
}

func decimalU64(s string) bool {
	if s == "" || strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return false
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}
