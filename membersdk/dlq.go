package membersdk

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Fields added to a dead-lettered entry, next to the entry's own fields.
const (
	DLQFieldOriginStream  = "rsc-origin-stream"
	DLQFieldOriginID      = "rsc-origin-id"
	DLQFieldError         = "rsc-error"
	DLQFieldConsumerGroup = "rsc-consumer-group"
	DLQFieldMemberID      = "rsc-member-id"
	DLQFieldDeliveries    = "rsc-delivery-count"
)

// DeadLetterKey is the default dead-letter stream of a stream:
// "{streamPrefix}:dlq", e.g. "orders:dlq". It is shared by every consumer
// group and shard of the stream; DLQFieldConsumerGroup and
// DLQFieldOriginStream tell the entries apart.
func DeadLetterKey(streamPrefix string) string { return streamPrefix + ":dlq" }

// deadLetter copies msg to the dead-letter stream, then acknowledges it —
// both only while the shard is still owned. If the member stops in between,
// the entry is delivered again and may be dead-lettered twice.
func (w *worker) deadLetter(msg Message, cause error) bool {
	values := make(map[string]any, len(msg.Values)+6)
	for k, v := range msg.Values {
		values[k] = v
	}
	values[DLQFieldOriginStream] = msg.StreamKey
	values[DLQFieldOriginID] = msg.ID
	values[DLQFieldError] = cause.Error()
	values[DLQFieldConsumerGroup] = w.c.cfg.ConsumerGroup
	values[DLQFieldMemberID] = w.c.cfg.MemberID
	values[DLQFieldDeliveries] = strconv.FormatInt(msg.DeliveryCount, 10)
	ctx := context.Background()
	var dlqID string
	ran, err := w.token.withOwnership(func() error {
		id, err := w.c.cfg.Redis.XAdd(ctx, &redis.XAddArgs{Stream: w.c.cfg.DeadLetterStream, Values: values}).Result()
		if err != nil {
			return err
		}
		dlqID = id
		if err := w.xack(ctx, false, msg.ID); err != nil {
			return err
		}
		w.c.emit(Event{Type: EventDeadLettered, Shard: w.shard, EntryID: msg.ID, Epoch: msg.Epoch, Err: cause})
		return nil
	})
	switch {
	case !ran:
		w.c.emit(Event{Type: EventAckRefused, Shard: w.shard, EntryID: msg.ID, Epoch: msg.Epoch, Err: cause})
		return false
	case err != nil:
		w.c.log.Warn("dead-lettering failed; the entry stays pending and will be delivered again", "shard", w.shard, "id", msg.ID, "error", err)
		w.reclaim.Store(true)
		return false
	}
	w.c.log.Warn("entry moved to the dead-letter stream", "shard", w.shard, "id", msg.ID, "dlq", w.c.cfg.DeadLetterStream, "dlqId", dlqID, "deliveries", msg.DeliveryCount, "error", cause)
	return true
}
