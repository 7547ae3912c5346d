package membersdk

// Fields added to a dead-lettered entry, next to the entry's own fields.
const (
	DLQFieldOriginStream  = "rsc-origin-stream"
	DLQFieldOriginID      = "rsc-origin-id"
	DLQFieldError         = "rsc-error"
	DLQFieldConsumerGroup = "rsc-consumer-group"
	DLQFieldMemberID      = "rsc-member-id"
	DLQFieldDeliveries    = "rsc-delivery-count"
)

// ShardDeadLetterKey is the default dead-letter stream of a shard stream:
// "{streamKey}:dlq", e.g. "{orders:3}:dlq". Its hash tag is the whole shard
// stream key, like the shard fence's, so the dead-letter stream, the shard
// stream and its fence share a Redis Cluster slot and the move is one atomic
// script on Redis Cluster too. It is shared by every consumer group of the
// shard; DLQFieldConsumerGroup tells the entries apart.
func ShardDeadLetterKey(streamKey string) string { return "{" + streamKey + "}:dlq" }

// DeadLetterKey is the one dead-letter stream for all shards of a stream
// that ConsumerConfig.DeadLetterStream names when set to it:
// "{streamPrefix}:dlq" without braces, e.g. "orders:dlq" (the default before
// dead-letter streams were per shard). On Redis Cluster it is not in the
// shards' slots, so a move to it is not atomic (see deadLetterCrossSlot).
func DeadLetterKey(streamPrefix string) string { return streamPrefix + ":dlq" }
