package group

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/reshard"
)

// A scale-in N→M finishes (shrink, fences deleted) and a scale-out M→N follows
// before the member heartbeats: the member is sticky to the shards it still holds
// and the seeded fence never names it.
func TestRegrownShardsGetFencesNamingTheirHolder(t *testing.T) {
	s := newShell(t, rules, time.Now)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Len(t, a.Assignment.AssignedShards, 4)
	ctx := context.Background()
	// scale-in 4→2: (retire 2,3), consume 2
	r := s.ask(&groupmsg.ResizeRequest{ShardCount: 2, MetadataVersion: 3}).(*groupmsg.ErrorReply)
	require.NoError(t, r.Err)
	require.NoError(t, s.prov.DeleteFences(ctx, key.StreamPrefix, key.ConsumerGroup, []int{2, 3}))
	// scale-out 2→4: provision (seed), switch, resize
	require.NoError(t, s.prov.SeedFences(ctx, key.StreamPrefix, key.ConsumerGroup, []int{2, 3}, reshard.FenceBase(4)))
	r = s.ask(&groupmsg.ResizeRequest{ShardCount: 4, MetadataVersion: 4}).(*groupmsg.ErrorReply)
	require.NoError(t, r.Err)
	// a heartbeats only now, still holding all four (its worker for 2, 3 idles on NOGROUP).
	for i := 0; i < 3; i++ {
		a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
		t.Logf("assigned %v revoking? epoch %d", protocol.Indexes(a.Assignment.AssignedShards), a.MemberEpoch)
	}
	for sh := 0; sh < 4; sh++ {
		f := s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, sh)
		t.Logf("shard %d fence owner %q token %d", sh, f.Owner, f.Token)
	}
	for _, sh := range protocol.Indexes(a.Assignment.AssignedShards) {
		f := s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, sh)
		require.Equal(t, "a", f.Owner, "a is told it may read shard %d but its fence does not name it", sh)
	}
}

// On a resharded stream a fence the group creates starts at the token base
// of its metadata version: a shard index that had an earlier incarnation
// (whose fence a migration deleted) never sees its tokens go back.
func TestNewFenceOnAReshardedStreamStartsAtItsBase(t *testing.T) {
	s := newShell(t, rules, time.Now)
	r := s.ask(&groupmsg.ResizeRequest{ShardCount: 4, MetadataVersion: 5}).(*groupmsg.ErrorReply)
	require.NoError(t, r.Err)
	a := s.beat("a", 0)
	require.NotEmpty(t, a.Assignment.AssignedShards)
	for _, sh := range protocol.Indexes(a.Assignment.AssignedShards) {
		f := s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, sh)
		require.Equal(t, "a", f.Owner)
		require.Equal(t, reshard.FenceBase(5)+1, f.Token, "shard %d", sh)
	}
}
