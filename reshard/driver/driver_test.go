package driver_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
	"github.com/redisstream/coordinator/reshard"
	"github.com/redisstream/coordinator/reshard/driver"
)

// fakeNode is a node without actors: the memory store, a resize that
// answers resizeErr, and a refusal the test sets.
type fakeNode struct {
	store *memstore.Store
	prov  *memstore.Provisioner
	owner string

	mu        sync.Mutex
	refusal   error
	resizeErr error
	resized   []int // consumed counts told to the groups
	states    []string
}

func newFakeNode() *fakeNode {
	return &fakeNode{store: memstore.New(), prov: memstore.NewProvisioner(), owner: "n1/1"}
}

func (n *fakeNode) Store() persistence.Store             { return n.store }
func (n *fakeNode) Provisioner() persistence.Provisioner { return n.prov }
func (n *fakeNode) NodeID() string                       { return "n1" }
func (n *fakeNode) Owner() string                        { return n.owner }
func (n *fakeNode) Logger() *slog.Logger                 { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
func (n *fakeNode) Metrics() driver.Metrics              { return n }
func (n *fakeNode) Now() time.Time                       { return time.Now() }

func (n *fakeNode) Refusal() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.refusal
}

func (n *fakeNode) ResizeGroups(_ context.Context, _ string, count int, _ int64, _ string) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.resizeErr != nil {
		return 1, n.resizeErr
	}
	n.resized = append(n.resized, count)
	return 0, nil
}

func (n *fakeNode) MigrationState(_, state string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.states = append(n.states, state)
}

var opts = driver.Options{RoutingGrace: 10 * time.Millisecond, PollInterval: 20 * time.Millisecond, DriverLease: 2 * time.Second}

// scale records a migration of stream p to target and marks the stream, as
// the host's Scale does before it calls DriveNow.
func scale(t *testing.T, d *driver.Driver, n *fakeNode, p string, target int) string {
	t.Helper()
	ctx := context.Background()
	rec, err := n.store.GetStream(ctx, p)
	require.NoError(t, err)
	l, err := reshard.Decode(rec.Extra)
	require.NoError(t, err)
	r := reshard.Record{Routing: rec.ShardCount, MetadataVersion: rec.MetadataVersion, Layout: l, Keep: d.Options().History}
	m, err := r.Start(target, "test", "", n.NodeID(), n.Now())
	require.NoError(t, err)
	require.NoError(t, n.store.MarkResharding(ctx, p))
	require.NoError(t, d.SaveLayout(ctx, rec, r))
	return m.ID
}

func newStream(t *testing.T, n *fakeNode, p string, shards int) {
	t.Helper()
	ctx := context.Background()
	_, err := n.store.CreateStream(ctx, persistence.StreamRecord{StreamPrefix: p, ShardCount: shards, MetadataVersion: 1})
	require.NoError(t, err)
	require.NoError(t, n.prov.EnsureStreams(ctx, p, 0, shards))
}

func migration(t *testing.T, n *fakeNode, p, id string) reshard.Migration {
	t.Helper()
	rec, err := n.store.GetStream(context.Background(), p)
	require.NoError(t, err)
	l, err := reshard.Decode(rec.Extra)
	require.NoError(t, err)
	m, ok := l.Find(id)
	require.True(t, ok, "migration %s of %s", id, p)
	return m
}

func waitState(t *testing.T, n *fakeNode, p, id, state string) reshard.Migration {
	t.Helper()
	var m reshard.Migration
	require.Eventually(t, func() bool {
		m = migration(t, n, p, id)
		return m.State == state
	}, 5*time.Second, 10*time.Millisecond, "migration %s of %s never reached %s", id, p, state)
	return m
}

// A scale-out: DriveNow runs the preparing steps before the answer, the
// loop finishes the migration, unmarks the stream and gives up its lease.
func TestDriverScaleOutWithoutAHost(t *testing.T) {
	n := newFakeNode()
	newStream(t, n, "orders", 2)
	d := driver.New(n, opts, time.Second)
	id := scale(t, d, n, "orders", 4)

	require.NoError(t, d.DriveNow("orders", id))
	require.NotEqual(t, reshard.StatePreparing, migration(t, n, "orders", id).State)
	for i := range 4 {
		require.True(t, n.prov.StreamExists(protocol.StreamKey("orders", i)), "shard %d", i)
	}

	d.Start()
	defer d.Stop()
	d.Kick()
	waitState(t, n, "orders", id, reshard.StateDeprecated)
	require.Eventually(t, func() bool {
		marked, err := n.store.ReshardingStreams(context.Background())
		return err == nil && len(marked) == 0
	}, 5*time.Second, 10*time.Millisecond, "the stream stays marked")
	// The driver unmarks the stream, looks once more, then gives its lease up.
	require.Eventually(t, func() bool {
		ok, err := n.store.AcquireDriver(context.Background(), "orders", "n2/1", time.Second)
		return err == nil && ok
	}, 5*time.Second, 10*time.Millisecond, "the driver lease was not given up")

	n.mu.Lock()
	defer n.mu.Unlock()
	require.Contains(t, n.resized, 4)
	require.Contains(t, n.states, reshard.StateDeprecated)
}

// A scale-in retires the removed shards once the grace is over.
func TestDriverScaleInRetiresRemovedShards(t *testing.T) {
	n := newFakeNode()
	newStream(t, n, "orders", 4)
	d := driver.New(n, opts, time.Second)
	id := scale(t, d, n, "orders", 2)
	d.Start()
	defer d.Stop()
	d.Kick()
	m := waitState(t, n, "orders", id, reshard.StateDeprecated)
	for _, i := range []int{2, 3} {
		require.False(t, n.prov.StreamExists(protocol.StreamKey("orders", i)), "shard %d", i)
		require.True(t, n.prov.RetiredExists(reshard.RetiredKey(protocol.StreamKey("orders", i), m.ID)), "shard %d", i)
	}
}

// A provisioning that fails is reported (503) with the migration left
// PREPARING.
func TestDriveNowReportsAFailedProvisioning(t *testing.T) {
	n := newFakeNode()
	newStream(t, n, "orders", 2)
	d := driver.New(n, opts, time.Second)
	id := scale(t, d, n, "orders", 4)
	n.prov.SetError(persistence.ErrUnavailable)

	err := d.DriveNow("orders", id)
	require.ErrorIs(t, err, coordinator.ErrUnavailable)
	require.Contains(t, err.Error(), "provisioning failed half-way")
	m := migration(t, n, "orders", id)
	require.Equal(t, reshard.StatePreparing, m.State)
	require.Contains(t, m.Waiting, "retrying after")
}

// A node that refuses to serve drives nothing; once it serves, its loop
// continues.
func TestDriverDrivesNothingWhileTheNodeRefuses(t *testing.T) {
	n := newFakeNode()
	n.refusal = errors.New("node conflict")
	newStream(t, n, "orders", 2)
	d := driver.New(n, opts, time.Second)
	id := scale(t, d, n, "orders", 3)
	d.Start()
	defer d.Stop()
	d.Kick()
	time.Sleep(5 * opts.PollInterval)
	require.Equal(t, reshard.StatePreparing, migration(t, n, "orders", id).State)

	n.mu.Lock()
	n.refusal = nil
	n.mu.Unlock()
	waitState(t, n, "orders", id, reshard.StateDeprecated)
}

// Groups that do not confirm their shard set keep the migration waiting,
// with the reason shown.
func TestDriverWaitsForGroupsToResize(t *testing.T) {
	n := newFakeNode()
	n.resizeErr = errors.New("group unreachable")
	newStream(t, n, "orders", 2)
	d := driver.New(n, opts, time.Second)
	id := scale(t, d, n, "orders", 3)
	d.Start()
	defer d.Stop()
	d.Kick()
	require.Eventually(t, func() bool {
		return migration(t, n, "orders", id).Waiting != ""
	}, 5*time.Second, 10*time.Millisecond)
	m := migration(t, n, "orders", id)
	require.Contains(t, m.Waiting, "telling the groups their new shard set")
	require.NotEqual(t, reshard.StateDeprecated, m.State)

	n.mu.Lock()
	n.resizeErr = nil
	n.mu.Unlock()
	waitState(t, n, "orders", id, reshard.StateDeprecated)
}

// Stop gives up the leases this node holds: another node continues at once.
func TestDriverStopReleasesItsLeases(t *testing.T) {
	n := newFakeNode()
	n.resizeErr = errors.New("group unreachable") // keeps the migration (and the lease) open
	newStream(t, n, "orders", 2)
	d := driver.New(n, opts, time.Second)
	id := scale(t, d, n, "orders", 3)
	require.NoError(t, d.DriveNow("orders", id))
	ok, err := n.store.AcquireDriver(context.Background(), "orders", "n2/1", time.Second)
	require.NoError(t, err)
	require.False(t, ok, "DriveNow took the lease")

	d.Stop()
	ok, err = n.store.AcquireDriver(context.Background(), "orders", "n2/1", time.Second)
	require.NoError(t, err)
	require.True(t, ok, "Stop gave the lease up")
}
