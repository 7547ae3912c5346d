package group

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
)

// fenceCounter is a Metrics that also counts fence writes (groupdeps.FenceMetrics).
type fenceCounter struct {
	nopMetrics
	set, clear atomic.Int64
}

var _ groupdeps.FenceMetrics = (*fenceCounter)(nil)

func (f *fenceCounter) FenceWrites(set, clear int) {
	f.set.Add(int64(set))
	f.clear.Add(int64(clear))
}

// Every fence write that lands is counted once, as set (a holder named) or
// clear (none); steady heartbeats count nothing.
func TestFenceWritesAreCounted(t *testing.T) {
	s := bareShell(t)
	fc := &fenceCounter{}
	s.deps = &Deps{Store: s.store, Provisioner: s.prov, Rules: rules, NodeID: "test", Now: time.Now, Metrics: fc}
	s.spawn()
	s.confirmLoop(time.Now)

	a := s.beat("a", 0)
	require.Len(t, a.Assignment.AssignedShards, 4)
	require.Equal(t, int64(4), fc.set.Load(), "a granted 4 shards: 4 fences set")
	require.Equal(t, int64(0), fc.clear.Load())
	for range 5 {
		a = s.beat("a", a.MemberEpoch, 0, 1, 2, 3)
	}
	require.Equal(t, int64(4), fc.set.Load(), "steady heartbeats write no fence")
	require.Len(t, s.prov.FenceLog(), 4)

	d := s.ask(&groupmsg.DeleteRequest{Force: true}).(*groupmsg.DeleteReply)
	require.NoError(t, d.Err)
	require.Equal(t, int64(4), fc.clear.Load(), "deleting the group clears the 4 fences")
	require.Equal(t, int64(len(s.prov.FenceLog())), fc.set.Load()+fc.clear.Load(), "one count per fence write")
}
