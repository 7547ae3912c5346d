package protocol

import (
	"strconv"
	"strings"
)

// OffsetsResponse is GET /coord/v1/streams/{p}/groups/{g}/offsets: where the
// group stands on every shard, as Redis reports it, with the coordinator's
// owners beside it.
type OffsetsResponse struct {
	StreamPrefix    string `json:"streamPrefix"`
	ConsumerGroup   string `json:"consumerGroup"`
	ShardCount      int    `json:"shardCount"`
	MetadataVersion int64  `json:"metadataVersion"`
	// Shards lists shards 0…shardCount-1, then any shard beyond the count
	// that a member still holds or is still assigned (a shard being drained
	// by a scale-in).
	Shards []ShardOffsets `json:"shards"`
}

// ShardOffsets is one shard of a group's offsets view.
type ShardOffsets struct {
	ShardIndex int    `json:"shardIndex"`
	StreamKey  string `json:"streamKey"`
	// Exists is false when the shard stream key does not exist in Redis.
	Exists bool `json:"exists"`
	// Length is XLEN.
	Length int64 `json:"length"`
	// LastGeneratedID is the stream's last-generated-id ("" if missing).
	LastGeneratedID string `json:"lastGeneratedId"`
	// GroupExists is false when the Redis consumer group is not on the shard.
	GroupExists bool `json:"groupExists"`
	// LastDeliveredID is the Redis consumer group's last-delivered-id.
	LastDeliveredID string `json:"lastDeliveredId"`
	// EntriesRead is the consumer group's entries-read; -1 when unknown.
	EntriesRead int64 `json:"entriesRead"`
	// Lag is the number of entries not yet delivered to the group; -1 when
	// Redis cannot tell (entries deleted, or Redis < 7).
	Lag int64 `json:"lag"`
	// Pending is the consumer group's pending entries (PEL size).
	Pending   int64          `json:"pending"`
	Consumers ShardConsumers `json:"consumers"`
	// MemoryUsage is MEMORY USAGE of the stream key in bytes; -1 unknown.
	MemoryUsage int64 `json:"memoryUsage"`
	// Owner is the member the coordinator counts as holding the shard now
	// ("" if none); TargetOwner the member the target assignment gives it to.
	Owner       string `json:"owner"`
	TargetOwner string `json:"targetOwner"`
}

// ShardConsumers are the Redis consumers of the group on one shard.
type ShardConsumers struct {
	Count int             `json:"count"`
	Names []ShardConsumer `json:"names"`
}

// ShardConsumer is one Redis consumer (XINFO CONSUMERS).
type ShardConsumer struct {
	Name    string `json:"name"`
	Pending int64  `json:"pending"`
	IdleMs  int64  `json:"idleMs"`
}

// MessagesResponse is GET /coord/v1/streams/{p}/shards/{i}/messages: one
// page of a shard stream, oldest first.
type MessagesResponse struct {
	StreamPrefix string          `json:"streamPrefix"`
	ShardIndex   int             `json:"shardIndex"`
	StreamKey    string          `json:"streamKey"`
	Messages     []StreamMessage `json:"messages"`
	// NextCursor is the `from` of the next page: the id of the last message
	// of this page when more entries followed it at the time of the read;
	// null at the end of the stream (poll again from the last id seen for
	// entries added since).
	NextCursor *string `json:"nextCursor"`
}

// StreamMessage is one stream entry.
type StreamMessage struct {
	ID     string            `json:"id"`
	Fields map[string]string `json:"fields"`
}

// IsStreamCursor reports whether s is a cursor the messages route takes:
// "-" (the start of the stream) or a stream entry id "ms" or "ms-seq"
// (decimal, each fitting an unsigned 64-bit integer; "ms" means "ms-0").
func IsStreamCursor(s string) bool {
	if s == "-" {
		return true
	}
	ms, seq, hasSeq := strings.Cut(s, "-")
	return decimalU64(ms) && (!hasSeq || decimalU64(seq))
}

func decimalU64(s string) bool {
	if s == "" || strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return false
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}
