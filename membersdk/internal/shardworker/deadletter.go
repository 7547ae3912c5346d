package shardworker

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
)

// Fields added to a dead-lettered entry, next to the entry's own fields.
// deadLetterStream is where this worker's dead letters go: the configured
// DeadLetterStream, or the shard's own ShardDeadLetterKey.
func (w *Worker) deadLetterStream() string {
	if s := w.h.DeadLetterStream; s != "" {
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
func (w *Worker) deadLetterCrossSlot(ctx context.Context, dlq, id string, fields []any) (string, error) {
	dlqID, err := w.h.Redis.XAdd(ctx, &redis.XAddArgs{Stream: dlq, Values: fields}).Result()
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
func (w *Worker) deadLetter(msg Message, cause error) bool {
	args := make([]any, 0, 4+2*(len(msg.Values)+6))
	args = append(args, w.h.Member, w.fence.TokenArg(), w.h.Group, msg.ID)
	for k, v := range msg.Values {
		args = append(args, k, v)
	}
	args = append(args,
		DLQFieldOriginStream, msg.StreamKey,
		DLQFieldOriginID, msg.ID,
		DLQFieldError, cause.Error(),
		DLQFieldConsumerGroup, w.h.Group,
		DLQFieldMemberID, w.h.Member,
		DLQFieldDeliveries, strconv.FormatInt(msg.DeliveryCount, 10))
	ctx := context.Background()
	dlq := w.deadLetterStream()
	var dlqID string
	ran, err := w.token.WithOwnership(func() error {
		w.hookBeforeWrite("deadletter")
		cmd, err := fence.DeadLetterScript.Run(ctx, w.h.Redis, []string{w.key, w.fence.Key, dlq}, args,
			func(ctx context.Context, a ...any) redis.Cmder { return redis.NewStringCmd(ctx, a...) })
		if err != nil && strings.HasPrefix(err.Error(), "CROSSSLOT") {
			dlqID, err = w.deadLetterCrossSlot(ctx, dlq, msg.ID, args[4:])
		} else if err == nil {
			dlqID = cmd.(*redis.StringCmd).Val()
		}
		if err != nil {
			return err
		}
		w.h.Emit(Event{Type: EventDeadLettered, Shard: w.shard, EntryID: msg.ID, Epoch: msg.Epoch, Err: cause})
		return nil
	})
	switch {
	case !ran:
		w.h.Emit(Event{Type: EventAckRefused, Shard: w.shard, EntryID: msg.ID, Epoch: msg.Epoch, Err: cause})
		return false
	case errors.Is(err, fence.ErrFenced):
		w.fenced(err, msg.Epoch, msg.ID)
		return false
	case err != nil:
		w.h.Log.Warn("dead-lettering failed; the entry stays pending and will be delivered again", "shard", w.shard, "id", msg.ID, "error", err)
		w.reclaim.Store(true)
		return false
	}
	w.h.Log.Warn("entry moved to the dead-letter stream", "shard", w.shard, "id", msg.ID, "dlq", dlq, "dlqId", dlqID, "deliveries", msg.DeliveryCount, "error", cause)
	return true
}
