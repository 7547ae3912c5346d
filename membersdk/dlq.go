package membersdk

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
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

// deadLetterStream is where this worker's dead letters go: the configured
// DeadLetterStream, or the shard's own ShardDeadLetterKey.
func (w *worker) deadLetterStream() string {
	if s := w.c.cfg.DeadLetterStream; s != "" {
		return s
	}
	return ShardDeadLetterKey(w.key)
}

// deadLetterCrossSlot is the move on Redis Cluster when a configured
// DeadLetterStream is not in the shard's slot (e.g. "orders:dlq"): a plain
// XADD, then the fenced XACK. Not atomic: if the fence refuses the XACK, the
// entry stays pending for the real owner and the dead-letter stream holds a
// copy written by this (stale) member (rsc-member-id says which). The
// default per-shard stream never takes this path.
func (w *worker) deadLetterCrossSlot(ctx context.Context, dlq, id string, fields []any) (string, error) {
	dlqID, err := w.c.cfg.Redis.XAdd(ctx, &redis.XAddArgs{Stream: dlq, Values: fields}).Result()
	if err != nil {
		return "", err
	}
	return dlqID, w.xack(ctx, false, id)
}

// deadLetter copies msg to the dead-letter stream and acknowledges it, in
// one script that first checks the shard's fence (fence.go), so the move is
// atomic: the entry is either dead-lettered and acknowledged, or neither —
// and neither when the shard has moved on. The default dead-letter stream
// is in the shard stream's Redis Cluster slot, so this holds on Redis
// Cluster too; a configured DeadLetterStream in another slot makes Redis
// answer CROSSSLOT there, and the move falls back to deadLetterCrossSlot
// (docs/MEMBER-SDK.md, "Dead letters").
func (w *worker) deadLetter(msg Message, cause error) bool {
	args := make([]any, 0, 4+2*(len(msg.Values)+6))
	args = append(args, w.c.cfg.MemberID, w.fence.TokenArg(), w.c.cfg.ConsumerGroup, msg.ID)
	for k, v := range msg.Values {
		args = append(args, k, v)
	}
	args = append(args,
		DLQFieldOriginStream, msg.StreamKey,
		DLQFieldOriginID, msg.ID,
		DLQFieldError, cause.Error(),
		DLQFieldConsumerGroup, w.c.cfg.ConsumerGroup,
		DLQFieldMemberID, w.c.cfg.MemberID,
		DLQFieldDeliveries, strconv.FormatInt(msg.DeliveryCount, 10))
	ctx := context.Background()
	dlq := w.deadLetterStream()
	var dlqID string
	ran, err := w.token.WithOwnership(func() error {
		w.hookBeforeWrite("deadletter")
		cmd, err := fence.DeadLetterScript.Run(ctx, w.c.cfg.Redis, []string{w.key, w.fence.Key, dlq}, args,
			func(ctx context.Context, a ...any) redis.Cmder { return redis.NewStringCmd(ctx, a...) })
		if err != nil && strings.HasPrefix(err.Error(), "CROSSSLOT") {
			dlqID, err = w.deadLetterCrossSlot(ctx, dlq, msg.ID, args[4:])
		} else if err == nil {
			dlqID = cmd.(*redis.StringCmd).Val()
		}
		if err != nil {
			return err
		}
		w.c.emit(Event{Type: EventDeadLettered, Shard: w.shard, EntryID: msg.ID, Epoch: msg.Epoch, Err: cause})
		return nil
	})
	switch {
	case !ran:
		w.c.emit(Event{Type: EventAckRefused, Shard: w.shard, EntryID: msg.ID, Epoch: msg.Epoch, Err: cause})
		return false
	case errors.Is(err, ErrFenced):
		w.fenced(err, msg.Epoch, msg.ID)
		return false
	case err != nil:
		w.c.log.Warn("dead-lettering failed; the entry stays pending and will be delivered again", "shard", w.shard, "id", msg.ID, "error", err)
		w.reclaim.Store(true)
		return false
	}
	w.c.log.Warn("entry moved to the dead-letter stream", "shard", w.shard, "id", msg.ID, "dlq", dlq, "dlqId", dlqID, "deliveries", msg.DeliveryCount, "error", cause)
	return true
}
