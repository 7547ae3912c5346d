package shardworker

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
)

// Dead consumer names (docs/MEMBER-SDK.md, "Consumer names"). Every member
// id that ever read a shard is a consumer of the shard's consumer group, and
// Redis never forgets one by itself: members that come and go (a rollout
// brings new pod IPs) would pile names up without bound. The owner of a
// shard deletes them:
//
//   - only while it holds the shard's fence (the script checks owner and
//     token, like an acknowledgement): the fence names one member, so every
//     other name belongs to a member that no longer holds the shard (moved,
//     left, expired, removed) and a stale owner can never delete the live
//     owner's name;
//   - only names with no pending entries, checked in the same script as the
//     XGROUP DELCONSUMER (DELCONSUMER drops a name's pending entries, so a
//     name with any is never deleted);
//   - after a claim pass that took every entry pending under other names
//     (XAUTOCLAIM from 0-0 until the cursor returns 0-0), so that dead
//     members' names have nothing pending left when it runs, and every
//     namesSweepEvery while reading.
//
// An entry delivered to a stale owner after the sweep (a frozen member
// blocked in XREADGROUP) recreates its name with that entry pending; the
// orphan sweep claims it and the next pass deletes the name. Without a fence
// (an older coordinator) the SDK deletes nothing: nothing in Redis then says
// who holds the shard.

// namesSweepEvery is how often an owner deletes dead consumer names on its
// shard besides after each claim pass.
const namesSweepEvery = 30 * time.Second

// DropNamesScript: KEYS = {stream, fence}; ARGV = {member, token, group}.
// Deletes every consumer of the group other than the member whose pending
// count is 0 and returns the deleted names.
var DropNamesScript = fence.NewScript(fence.Check + `
local dropped = {}
for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[3])) do
  local name, pending
  for i = 1, #c, 2 do
    if c[i] == 'name' then name = c[i + 1] elseif c[i] == 'pending' then pending = c[i + 1] end
  end
  if name and name ~= ARGV[1] and pending == 0 then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[3], name)
    dropped[#dropped + 1] = name
  end
end
return dropped
`)

// dropDeadNames deletes the other consumer names without pending entries on
// the worker's shard (see above). Failures are logged and left for the next
// pass; a fence refusal stops the worker like any fenced write.
func (w *Worker) dropDeadNames() {
	if !w.fence.Fenced || !w.token.Valid() {
		return
	}
	w.hookBeforeWrite("dropnames")
	cmd, err := DropNamesScript.Run(context.WithoutCancel(w.readCtx), w.h.Redis, []string{w.key, w.fence.Key},
		[]any{w.h.Member, w.fence.TokenArg(), w.h.Group},
		func(ctx context.Context, args ...any) redis.Cmder { return redis.NewStringSliceCmd(ctx, args...) })
	if err != nil {
		if errors.Is(err, fence.ErrFenced) {
			w.fenced(err, w.h.Epoch.Load())
			return
		}
		w.h.Log.Warn("deleting dead consumer names failed; retrying on the next pass", "shard", w.shard, "error", err)
		return
	}
	names := cmd.(*redis.StringSliceCmd).Val()
	if len(names) > 0 {
		w.h.NamesGone.Add(int64(len(names)))
		w.h.Log.Info("deleted consumer names of members that no longer hold the shard (nothing pending under them)",
			"shard", w.shard, "count", len(names), "names", names)
	}
}
