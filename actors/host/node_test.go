package host

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

// tamperStore rewrites the answer of the next renewal (what a store that lost data would say).
type tamperStore struct {
	persistence.Store
	mu     sync.Mutex
	tamper func(*persistence.NodeStatus)
}

func (s *tamperStore) RenewNode(ctx context.Context, r persistence.NodeRenewal) (persistence.NodeStatus, error) {
	st, err := s.Store.RenewNode(ctx, r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && s.tamper != nil {
		s.tamper(&st)
		s.tamper = nil
	}
	return st, err
}

// Each sign of a store that lost data, seen by a node's renewal, holds grants for a lease and
// shows in health; a record that expired because the node could not renew for longer than its
// TTL is not a loss (the node re-checks its groups instead).
func TestNodeRoundDetectsLostState(t *testing.T) {
	cases := map[string]struct {
		tamper func(*persistence.NodeStatus)
		stale  bool // the node has not renewed for longer than the record's TTL
		lost   string
	}{
		"marker changed":    {tamper: func(st *persistence.NodeStatus) { st.Instance.ID = "other" }, lost: "instance marker changed"},
		"record vanished":   {tamper: func(st *persistence.NodeStatus) { st.Created = true }, lost: "record vanished"},
		"counter backwards": {tamper: func(st *persistence.NodeStatus) { st.Renews = 1 }, lost: "went backwards"},
		"record expired":    {tamper: func(st *persistence.NodeStatus) { st.Created = true }, stale: true},
		"nothing":           {tamper: func(*persistence.NodeStatus) {}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			ts := &tamperStore{Store: memstore.New()}
			var skew atomic.Int64 // added to the wall clock: the next round starts that much later
			h := New(Options{Store: ts, Provisioner: memstore.NewProvisioner(), NodeID: "n", Rules: quickRules, TrustEmptyStore: true,
				Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }})
			t.Cleanup(h.Stop)
			require.NoError(t, h.node.Round(ctx))
			require.NoError(t, h.node.Round(ctx))
			require.Nil(t, h.Service().Health(ctx).StateLost)
			if tc.stale {
				skew.Store(int64(time.Hour)) // the last successful round was an hour ago
			}
			ts.mu.Lock()
			ts.tamper = tc.tamper
			ts.mu.Unlock()
			require.NoError(t, h.node.Round(ctx))
			got := h.Service().Health(ctx)
			if tc.lost == "" {
				require.Nil(t, got.StateLost)
				require.True(t, h.node.Hold(persistence.GroupKey{}).IsZero())
				return
			}
			require.NotNil(t, got.StateLost)
			require.Contains(t, got.StateLost.Reason, tc.lost)
			require.Equal(t, "DEGRADED", got.Status)
			require.WithinDuration(t, time.Now().Add(quickRules.LeaseTTL+quickRules.HeartbeatInterval), h.node.Hold(persistence.GroupKey{}), time.Second)
		})
	}
}

// A real flush of the memory store is seen as a changed marker.
func TestNodeRoundSeesAFlush(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	h := New(Options{Store: mem, Provisioner: memstore.NewProvisioner(), NodeID: "n", Rules: quickRules, TrustEmptyStore: true})
	t.Cleanup(h.Stop)
	require.NoError(t, h.node.Round(ctx))
	mem.Flush()
	require.NoError(t, h.node.Round(ctx))
	require.NotNil(t, h.Service().Health(ctx).StateLost)
}

// A store without marker, or with one younger than a lease (created by another node), is a
// new data set: nothing is held node-wide and health stays UP, for one lease + interval from
// the marker's creation on every node. trust-empty-store skips even that.
func TestEmptyOrYoungStoreIsANewDataSet(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	a := New(Options{Store: mem, Provisioner: memstore.NewProvisioner(), NodeID: "a", Rules: quickRules})
	t.Cleanup(a.Stop)
	require.NoError(t, a.node.Round(ctx))
	require.Nil(t, a.Service().Health(ctx).StateLost, "a new deployment is not a data loss")
	ds := a.node.DataSet()
	require.False(t, ds.Until.IsZero())
	b := New(Options{Store: mem, Provisioner: memstore.NewProvisioner(), NodeID: "b", Rules: quickRules})
	t.Cleanup(b.Stop)
	require.NoError(t, b.node.Round(ctx))
	require.Nil(t, b.Service().Health(ctx).StateLost)
	require.WithinDuration(t, ds.Until, b.node.DataSet().Until, time.Millisecond, "every node counts from the marker's creation")
	trusting := New(Options{Store: mem, Provisioner: memstore.NewProvisioner(), NodeID: "c", Rules: quickRules, TrustEmptyStore: true})
	t.Cleanup(trusting.Stop)
	require.NoError(t, trusting.node.Round(ctx))
	require.Zero(t, trusting.node.DataSet())
}
