package membersdk

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

// fenceChange is one fence write; at is when it had completed.
type fenceChange struct {
	shard int
	owner string
	token int64
	at    time.Time
}

// writeFence sets the fence of shard s (owner, token+1) and logs it. Called
// with f.mu held.
func (f *fakeCoord) writeFence(s int, owner string, epoch int64) error {
	ctx := context.Background()
	key := fence.Key(protocol.StreamKey(testStream, s), testGroup)
	var incr *redis.IntCmd
	_, err := f.rc.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, "owner", owner, "epoch", epoch, "at", time.Now().UTC().Format(time.RFC3339Nano))
		incr = p.HIncrBy(ctx, key, "token", 1)
		return nil
	})
	if err != nil {
		return err
	}
	f.fenceOwner[s] = owner
	f.fenceLog = append(f.fenceLog, fenceChange{shard: s, owner: owner, token: incr.Val(), at: time.Now()})
	return nil
}

func (f *fakeCoord) fenceHistory() []fenceChange {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fenceChange(nil), f.fenceLog...)
}

// useRedis makes the fake coordinator fence shards in rc (the first client
// a test configures a member with).
func (f *fakeCoord) useRedis(rc redis.UniversalClient) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := rc.(*redis.Client); ok && f.rc == nil {
		f.rc = c
	}
}

// writeFences applies FENCE.md for one answer (called with f.mu held): every
// shard the answer assigns to the member gets owner=member and a new token
// unless the fence already names it; every shard whose fence names the member
// and that it neither is assigned nor still reports owned (draining) is
// cleared. UNKNOWN_MEMBER_ID and FENCED_MEMBER_EPOCH clear all of the
// member's shards; other failures change nothing.
func (f *fakeCoord) writeFences(req protocol.HeartbeatRequest, resp protocol.HeartbeatResponse) error {
	if f.rc == nil || f.noFence {
		return nil
	}
	m := req.MemberID
	keep := map[int]bool{}
	var grant []int
	switch resp.Status {
	case protocol.StatusOK:
		for _, s := range released(req) {
			keep[s] = true
		}
		if resp.MemberEpoch >= 0 { // not a leave (-1) or a temporary leave (-2)
			for _, s := range protocol.Indexes(resp.Assignment.AssignedShards) {
				keep[s] = true
				if f.fenceOwner[s] != m {
					grant = append(grant, s)
				}
			}
		}
	case protocol.StatusUnknownMemberID, protocol.StatusFencedMemberEpoch:
	default:
		return nil
	}
	set := func(s int, owner string) error { return f.writeFence(s, owner, resp.MemberEpoch) }
	for s, owner := range f.fenceOwner {
		if owner == m && !keep[s] {
			if err := set(s, ""); err != nil {
				return err
			}
		}
	}
	for _, s := range grant {
		if err := set(s, m); err != nil {
			return err
		}
	}
	return nil
}

// expire clears the fences a member holds as the coordinator would when its owner's
// lease expired (owner "", token+1), and forgets that member's holdings, so
// that the shard can be granted to someone else while the member is frozen.
func (f *fakeCoord) expire(member string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.epochs, member)
	delete(f.owned, member)
	delete(f.given, member)
	delete(f.target, member)
	for s, owner := range f.fenceOwner {
		if owner == member {
			require.NoError(f.t, f.writeFence(s, "", 0))
		}
	}
}
