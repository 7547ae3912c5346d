package group

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// gateNode is a NopNode whose rejoin gate answer a test sets.
type gateNode struct {
	groupdeps.NopNode
	mu        sync.Mutex
	why       string
	elsewhere bool
}

func (n *gateNode) set(why string, elsewhere bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.why, n.elsewhere = why, elsewhere
}

func (n *gateNode) PlacedElsewhere(persistence.GroupKey) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.why, n.elsewhere
}

func gatedShell(t *testing.T, node *gateNode) *shell {
	s := bareShell(t)
	s.deps = &Deps{Store: s.store, Provisioner: s.prov, Rules: rules, NodeID: "test", Now: time.Now, Node: node}
	s.spawn()
	s.confirmLoop(time.Now)
	return s
}

// A grain the gate holds while a live holder hands the group over stays
// dormant: RETRY, nothing activated in the store, and it activates in place
// once the gate lets it (no new grain: callers that cached it keep it).
func TestGatedGrainWaitsDormantAndActivatesInPlace(t *testing.T) {
	node := &gateNode{why: "held by node a"}
	s := gatedShell(t, node)
	for range 3 {
		require.Equal(t, protocol.StatusRetry, s.beat("a", 0).Status)
	}
	_, err := s.store.LoadGroup(context.Background(), key)
	require.ErrorIs(t, err, persistence.ErrNotFound, "a gated grain takes no activation")

	node.set("", false)
	require.Eventually(t, func() bool { return s.beat("a", 0).Status == protocol.StatusOK }, 5*time.Second, 20*time.Millisecond)
	snap, err := s.store.LoadGroup(context.Background(), key)
	require.NoError(t, err)
	require.Equal(t, int64(1), snap.ActivationEpoch)
	require.Len(t, s.pids, 1)
}

// A grain whose node's own list places the group elsewhere answers RETRY
// (if a request reaches it) and stops, so that callers look the group up
// again.
func TestGrainPlacedElsewhereStops(t *testing.T) {
	s := gatedShell(t, &gateNode{why: "placed on A", elsewhere: true})
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "a-0", MemberID: "a", OwnedShards: []protocol.ShardID{}}
	res, err := s.system.Root.RequestFuture(s.pid, &groupmsg.HeartbeatRequest{PathMemberID: "a", Request: req}, 5*time.Second).Result()
	if err == nil {
		require.Equal(t, protocol.StatusRetry, res.(*groupmsg.HeartbeatReply).Response.Status)
	}
	require.Eventually(t, func() bool {
		_, alive := s.system.ProcessRegistry.GetLocal(s.pid.Id)
		return !alive
	}, 5*time.Second, 10*time.Millisecond, "the grain stopped")
	_, err = s.store.LoadGroup(context.Background(), key)
	require.ErrorIs(t, err, persistence.ErrNotFound, "nothing activated")
}
