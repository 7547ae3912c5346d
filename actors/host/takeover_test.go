package host

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// partStore cuts one node off the store (every call fails as unreachable) while down is set.
type partStore struct {
	persistence.Store
	down atomic.Bool
}

func (p *partStore) err(op string) error {
	return fmt.Errorf("%s: partitioned: %w", op, persistence.ErrUnavailable)
}

func (p *partStore) RenewNode(ctx context.Context, r persistence.NodeRenewal) (persistence.NodeStatus, error) {
	if p.down.Load() {
		return persistence.NodeStatus{}, p.err("renew")
	}
	return p.Store.RenewNode(ctx, r)
}

func (p *partStore) CheckActivation(ctx context.Context, k persistence.GroupKey, e int64) error {
	if p.down.Load() {
		return p.err("check")
	}
	return p.Store.CheckActivation(ctx, k, e)
}

func (p *partStore) ReleaseActivation(ctx context.Context, k persistence.GroupKey, e int64, handover []byte) error {
	if p.down.Load() {
		return p.err("release")
	}
	return p.Store.ReleaseActivation(ctx, k, e, handover)
}

func (p *partStore) SaveGroup(ctx context.Context, k persistence.GroupKey, e, rev int64, c persistence.GroupChange) (int64, error) {
	if p.down.Load() {
		return 0, p.err("save")
	}
	return p.Store.SaveGroup(ctx, k, e, rev, c)
}

var takeoverRules = model.Config{HeartbeatInterval: time.Second, LeaseTTL: 6 * time.Second, RebalanceTimeout: 6 * time.Second, Retention: time.Hour}

func manualHost(t *testing.T, store persistence.Store, prov persistence.Provisioner, id string, clk *fakeClock) *Host {
	h := New(Options{Store: store, Provisioner: prov, NodeID: id, Now: clk.Now, Rules: takeoverRules, TrustEmptyStore: true,
		ClusterView: testCluster(id)})
	t.Cleanup(h.Stop)
	return h
}

// settle makes sure every group actor of h has handled what was sent to it (node rounds).
func settle(t *testing.T, h *Host) {
	t.Helper()
	_, err := h.Service().DebugActors(context.Background())
	require.NoError(t, err)
}

// answersOK asks the activation that runs on h right now (never activating a new one).
func answersOK(t *testing.T, h *Host, key persistence.GroupKey, req protocol.HeartbeatRequest) bool {
	t.Helper()
	pid, ok := h.router.Active(key)
	if !ok {
		return false
	}
	res, err := h.system.Root.RequestFuture(pid, &groupmsg.HeartbeatRequest{PathMemberID: req.MemberID, Request: req}, 2*time.Second).Result()
	if err != nil {
		return false
	}
	r, ok := res.(*groupmsg.HeartbeatReply)
	return ok && r.Response.Status == protocol.StatusOK
}

// Two nodes on one store (a stale activation: old node cut off, or two nodes that each took
// the group): after B takes the group over, A stops answering no later than validity after
// the takeover notice, and B answers no earlier. At no instant do both answer OK.
func TestStaleActivationStopsBeforeTheNewOneAnswers(t *testing.T) {
	for _, partitioned := range []bool{false, true} {
		t.Run(fmt.Sprintf("partitioned=%v", partitioned), func(t *testing.T) {
			ctx := context.Background()
			clk := newFakeClock()
			mem := memstore.New()
			mem.SetNow(clk.Now)
			prov := memstore.NewProvisioner()
			_, err := mem.CreateStream(ctx, persistence.StreamRecord{StreamPrefix: "orders", ShardCount: 4, MetadataVersion: 1})
			require.NoError(t, err)
			pa := &partStore{Store: mem}
			a := manualHost(t, pa, prov, "a", clk)
			b := manualHost(t, mem, prov, "b", clk)
			require.NoError(t, a.node.Round(ctx))
			require.NoError(t, b.node.Round(ctx))

			key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "workers"}
			r, err := a.Service().Heartbeat(ctx, "orders", "workers", "m", protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "j", MemberID: "m"})
			require.NoError(t, err)
			require.Len(t, r.Assignment.AssignedShards, 4)
			steady := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "s", MemberID: "m", MemberEpoch: r.MemberEpoch, OwnedShards: r.Assignment.AssignedShards}
			r, err = a.Service().Heartbeat(ctx, "orders", "workers", "m", steady)
			require.NoError(t, err)
			require.Equal(t, protocol.StatusOK, r.Status)
			clk.Advance(100 * time.Millisecond)
			require.NoError(t, a.node.Round(ctx))
			settle(t, a)
			if partitioned {
				pa.down.Store(true) // A keeps answering from memory until its last round + validity
			}

			validity := group.Validity(takeoverRules)
			bump := clk.Now() // the fake clock stands still during B's activation
			rb, err := b.Service().Heartbeat(ctx, "orders", "workers", "m", steady)
			require.NoError(t, err)
			require.Equal(t, protocol.StatusRetry, rb.Status, "B answered before validity had passed since it told A")

			var lastA, firstB time.Time
			for step := 0; step < 40; step++ {
				clk.Advance(100 * time.Millisecond)
				_ = a.node.Round(ctx)
				require.NoError(t, b.node.Round(ctx))
				settle(t, a)
				settle(t, b)
				now := clk.Now()
				okA := answersOK(t, a, key, steady)
				rb, err := b.Service().Heartbeat(ctx, "orders", "workers", "m", steady)
				require.NoError(t, err)
				okB := rb.Status == protocol.StatusOK
				require.False(t, okA && okB, "both activations answered OK at +%s", now.Sub(bump))
				if okA {
					lastA = now
					require.False(t, now.After(bump.Add(validity)), "A answered OK %s after the takeover notice", now.Sub(bump))
				}
				if okB && firstB.IsZero() {
					firstB = now
					require.False(t, now.Before(bump.Add(validity)), "B answered OK %s after its notice", now.Sub(bump))
				}
			}
			require.False(t, firstB.IsZero(), "B never answered")
			if !lastA.IsZero() {
				t.Logf("A last OK at +%v, B first OK at +%v (validity %v)", lastA.Sub(bump), firstB.Sub(bump), validity)
			}
			if partitioned {
				require.False(t, lastA.IsZero(), "a partitioned A answers from memory until its confirmation runs out")
			}
		})
	}
}
