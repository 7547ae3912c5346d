package host

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group"
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
			h := New(Options{Store: ts, Provisioner: memstore.NewProvisioner(), NodeID: "n", Rules: quickRules, TrustEmptyStore: true})
			t.Cleanup(h.Stop)
			require.NoError(t, h.node.round(ctx))
			require.NoError(t, h.node.round(ctx))
			require.Nil(t, h.Health(ctx).StateLost)
			if tc.stale {
				h.node.lastOK = time.Now().Add(-time.Hour)
			}
			ts.mu.Lock()
			ts.tamper = tc.tamper
			ts.mu.Unlock()
			require.NoError(t, h.node.round(ctx))
			got := h.Health(ctx)
			if tc.lost == "" {
				require.Nil(t, got.StateLost)
				require.True(t, h.hold(persistence.GroupKey{}).IsZero())
				return
			}
			require.NotNil(t, got.StateLost)
			require.Contains(t, got.StateLost.Reason, tc.lost)
			require.Equal(t, "DEGRADED", got.Status)
			require.WithinDuration(t, time.Now().Add(quickRules.LeaseTTL+quickRules.HeartbeatInterval), h.hold(persistence.GroupKey{}), time.Second)
		})
	}
}

// A real flush of the memory store is seen as a changed marker.
func TestNodeRoundSeesAFlush(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	h := New(Options{Store: mem, Provisioner: memstore.NewProvisioner(), NodeID: "n", Rules: quickRules, TrustEmptyStore: true})
	t.Cleanup(h.Stop)
	require.NoError(t, h.node.round(ctx))
	mem.Flush()
	require.NoError(t, h.node.round(ctx))
	require.NotNil(t, h.Health(ctx).StateLost)
}

// A store without marker, or with one younger than a lease (created by another node), is a
// new data set: nothing is held node-wide and health stays UP, for one lease + interval from
// the marker's creation on every node. trust-empty-store skips even that.
func TestEmptyOrYoungStoreIsANewDataSet(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	a := New(Options{Store: mem, Provisioner: memstore.NewProvisioner(), NodeID: "a", Rules: quickRules})
	t.Cleanup(a.Stop)
	require.NoError(t, a.node.round(ctx))
	require.Nil(t, a.Health(ctx).StateLost, "a new deployment is not a data loss")
	ds := a.dataSet()
	require.False(t, ds.Until.IsZero())
	b := New(Options{Store: mem, Provisioner: memstore.NewProvisioner(), NodeID: "b", Rules: quickRules})
	t.Cleanup(b.Stop)
	require.NoError(t, b.node.round(ctx))
	require.Nil(t, b.Health(ctx).StateLost)
	require.WithinDuration(t, ds.Until, b.dataSet().Until, time.Millisecond, "every node counts from the marker's creation")
	trusting := New(Options{Store: mem, Provisioner: memstore.NewProvisioner(), NodeID: "c", Rules: quickRules, TrustEmptyStore: true})
	t.Cleanup(trusting.Stop)
	require.NoError(t, trusting.node.round(ctx))
	require.Zero(t, trusting.dataSet())
}

// failStore fails every renewal while fail is set, as a store that does not answer in time.
type failStore struct {
	persistence.Store
	fail atomic.Bool
}

func (s *failStore) RenewNode(ctx context.Context, r persistence.NodeRenewal) (persistence.NodeStatus, error) {
	if s.fail.Load() {
		return persistence.NodeStatus{}, fmt.Errorf("renew node: %w: context deadline exceeded", persistence.ErrUnavailable)
	}
	return s.Store.RenewNode(ctx, r)
}

// syncBuffer is a log sink the node's own rounds may write to concurrently.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A renewal that fails once, while the groups are still confirmed by the previous one, changes
// nothing a member sees: no WARN. Renewals failing for the whole confirmation validity (the
// groups answer RETRY from then on) are logged once at WARN, and the recovery at INFO.
func TestNodeRenewalFailureWarnsOnlyOnceGroupsStopAnswering(t *testing.T) {
	ctx := context.Background()
	var clock atomic.Int64
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	clock.Store(t0.UnixNano())
	at := func(d time.Duration) { clock.Store(t0.Add(d).UnixNano()) }
	var logs syncBuffer
	fs := &failStore{Store: memstore.New()}
	h := New(Options{Store: fs, Provisioner: memstore.NewProvisioner(), NodeID: "n", Rules: quickRules, TrustEmptyStore: true,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:    func() time.Time { return time.Unix(0, clock.Load()) }})
	t.Cleanup(h.Stop)
	validity := group.Validity(quickRules)
	warns := func() int { return strings.Count(logs.String(), "cannot renew this node's record") }

	require.NoError(t, h.node.round(ctx))
	fs.fail.Store(true)
	at(validity / 2)
	require.Error(t, h.node.round(ctx))
	require.Zero(t, warns(), "one failed round within the validity is not worth a WARN:\n%s", logs.String())
	require.Contains(t, logs.String(), "level=DEBUG")

	at(validity + time.Millisecond)
	require.Error(t, h.node.round(ctx))
	require.Error(t, h.node.round(ctx))
	require.Equal(t, 1, warns(), "one WARN per outage:\n%s", logs.String())
	require.Contains(t, logs.String(), "level=WARN")

	fs.fail.Store(false)
	require.NoError(t, h.node.round(ctx))
	require.Contains(t, logs.String(), "node record renewed again")

	fs.fail.Store(true)
	at(validity + validity/2)
	require.Error(t, h.node.round(ctx))
	require.Equal(t, 1, warns(), "a new short failure is not logged at WARN:\n%s", logs.String())
}
