package router

import (
	"context"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

// localRouter is a single-node router over a memory store holding stream
// "orders" (4 shards), its group actors in a fresh actor system.
func localRouter(t *testing.T) *Router {
	t.Helper()
	store, prov := memstore.New(), memstore.NewProvisioner()
	_, err := store.CreateStream(context.Background(), persistence.StreamRecord{StreamPrefix: "orders", ShardCount: 4, MetadataVersion: 1})
	require.NoError(t, err)
	system := actor.NewActorSystem()
	deps := &group.Deps{Store: store, Provisioner: prov, NodeID: "test", StoreTimeout: time.Second,
		Rules: model.Config{HeartbeatInterval: time.Second, LeaseTTL: 10 * time.Second, RebalanceTimeout: 10 * time.Second, Retention: time.Hour}}
	r := New(Options{System: system, NodeID: "test", Props: func(k persistence.GroupKey) *actor.Props { return group.Props(k, deps) }})
	deps.Node = nodeOf{r: r}
	t.Cleanup(func() {
		for _, pid := range r.Clear() {
			_ = system.Root.StopFuture(pid).Wait()
		}
		system.Shutdown()
	})
	return r
}

// nodeOf is a groupdeps.Node that keeps the router's registry.
type nodeOf struct {
	groupdeps.NopNode

	r *Router
}

func (n nodeOf) GroupStarted(key persistence.GroupKey, self *actor.PID) { n.r.Started(key, self) }
func (n nodeOf) GroupStopped(key persistence.GroupKey, self *actor.PID) { n.r.Stopped(key, self) }

// A local heartbeat sent to a group actor that has stopped (the registry still named it) is
// reported back as a dead letter and sent once more to a fresh activation: the member gets its
// answer, not a RETRY after the wait ran out.
func TestLocalHeartbeatToAStoppedActorIsAskedAgain(t *testing.T) {
	r := localRouter(t)
	ctx := context.Background()
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "g"}
	rep, err := r.Heartbeat(ctx, key, groupmsg.HeartbeatRequest{PathMemberID: "m",
		Request: protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "j", MemberID: "m"}})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusOK, rep.Response.Status, rep.Response.Message)

	stale, ok := r.Active(key)
	require.True(t, ok)
	require.NoError(t, r.o.System.Root.StopFuture(stale).Wait())
	r.Started(key, stale) // as if looked up just before it stopped

	first := rep.Response
	rep, err = r.Heartbeat(ctx, key, groupmsg.HeartbeatRequest{PathMemberID: "m", Request: protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "b", MemberID: "m",
		MemberEpoch: first.MemberEpoch, MetadataVersion: first.MetadataVersion, OwnedShards: first.Assignment.AssignedShards}})
	require.NoError(t, err)
	// Without the dead-letter report the ask would wait out its deadline and answer RETRY.
	require.Equal(t, protocol.StatusOK, rep.Response.Status, rep.Response.Message)
	_, ok = r.Active(key)
	require.True(t, ok, "a fresh activation is registered")
}
