package host

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
	"github.com/redisstream/coordinator/reshard"
)

type unmarkHook struct {
	persistence.Store
	before atomic.Pointer[func()]
}

func (u *unmarkHook) UnmarkResharding(ctx context.Context, p string) error {
	if f := u.before.Swap(nil); f != nil {
		(*f)() // a scale posted between the driver's read (no active migration) and its SREM
	}
	return u.Store.UnmarkResharding(ctx, p)
}

// hookedHost starts a node on store (a hook around the Redis store of srv)
// with a 2-shard stream "orders" and a member a holding both shards.
func hookedHost(t *testing.T, srv *redistest.Server, store persistence.Store) (*Host, *reshardMember) {
	t.Helper()
	opts := reshardOpts()
	opts.Store, opts.Provisioner, opts.NodeID = store, redisstore.NewProvisioner(srv.Client()), "n1"
	h := New(opts)
	t.Cleanup(h.Stop)
	require.NoError(t, h.Start(context.Background()))
	two := 2
	_, err := h.Service().CreateStream(context.Background(), "orders", protocol.CreateStreamRequest{InitialShardCount: &two, RequestedBy: "test"})
	require.NoError(t, err)
	a := &reshardMember{id: "a"}
	require.Eventually(t, func() bool { a.beat(t, h); return len(ownedSet(a)) == 2 }, 10*time.Second, 10*time.Millisecond)
	return h, a
}

// A scale recorded between the driver's read (no active migration) and its
// unmark is still driven to its end.
func TestReshardScaleRightAfterFinishIsNotLost(t *testing.T) {
	srv := redistest.Start(t)
	store, err := redisstore.New(srv.Client(), redisstore.Options{})
	require.NoError(t, err)
	hook := &unmarkHook{Store: store}
	h, a := hookedHost(t, srv, hook)
	ctx := context.Background()

	var second atomic.Pointer[string] // written by the store hook, on the driver's goroutine
	var once sync.Once
	f := func() {
		once.Do(func() {
			resp, err := scaleTo(t, h, 4)
			require.NoError(t, err)
			id := resp.Migrations[0].ReshardingID
			second.Store(&id)
		})
	}
	// Armed before the first scale: its driver may finish and unmark the stream
	// before scaleTo returns (a scale-out needs no grace).
	hook.before.Store(&f)
	resp, err := scaleTo(t, h, 3)
	require.NoError(t, err)
	waitMigration(t, h, resp.Migrations[0].ReshardingID, reshard.StateDeprecated, a)
	require.Eventually(t, func() bool { return second.Load() != nil }, 5*time.Second, 10*time.Millisecond)
	waitMigration(t, h, *second.Load(), reshard.StateDeprecated, a)
	// The driver unmarks the stream on its next step after the finish.
	require.Eventually(t, func() bool {
		marked, err := store.ReshardingStreams(ctx)
		require.NoError(t, err)
		return len(marked) == 0
	}, 5*time.Second, 10*time.Millisecond, "the stream stays marked as resharding after its migrations finished")
}

// raceHook interleaves a scale with a driver that finishes the previous
// migration: the scale marks the stream before the driver's unmark and
// records its migration only after the driver looked again and gave its
// lease up.
type raceHook struct {
	persistence.Store
	armed    atomic.Bool   // the next unmark starts the scale
	scaling  atomic.Bool   // the scale's record write waits for released
	marked   chan struct{} // the scale marked the stream
	released chan struct{} // the driver gave its lease up
	start    func()
}

func (r *raceHook) UnmarkResharding(ctx context.Context, p string) error {
	if r.armed.CompareAndSwap(true, false) {
		r.scaling.Store(true)
		go r.start()
		<-r.marked
	}
	return r.Store.UnmarkResharding(ctx, p)
}

func (r *raceHook) MarkResharding(ctx context.Context, p string) error {
	err := r.Store.MarkResharding(ctx, p)
	if r.scaling.Load() {
		select {
		case r.marked <- struct{}{}:
		default:
		}
	}
	return err
}

func (r *raceHook) UpdateStream(ctx context.Context, rec persistence.StreamRecord, rev int64) (persistence.StreamRecord, error) {
	// Only the scale's own write waits: the one that records a migration to 4
	// shards. The driver also writes the record after its unmark (its second
	// look); held here, it would wait for its own release and time out.
	if l, err := reshard.Decode(rec.Extra); err == nil && l.Active != nil && l.Active.To == 4 &&
		r.scaling.CompareAndSwap(true, false) {
		select {
		case <-r.released:
		case <-time.After(5 * time.Second):
		}
	}
	return r.Store.UpdateStream(ctx, rec, rev)
}

func (r *raceHook) ReleaseDriver(ctx context.Context, p, owner string) error {
	err := r.Store.ReleaseDriver(ctx, p, owner)
	select {
	case r.released <- struct{}{}:
	default:
	}
	return err
}

// A scale that marks the stream before a finishing driver's unmark and
// records its migration after the driver's second look is still driven to
// its end (it was left ACTIVE and unmarked, never driven again).
func TestReshardScaleMarkedBeforeUnmarkSavedAfterIsDriven(t *testing.T) {
	srv := redistest.Start(t)
	store, err := redisstore.New(srv.Client(), redisstore.Options{})
	require.NoError(t, err)
	hook := &raceHook{Store: store, marked: make(chan struct{}, 1), released: make(chan struct{}, 1)}
	h, a := hookedHost(t, srv, hook)

	var second atomic.Pointer[string]
	scaleErr := make(chan error, 1)
	hook.start = func() {
		resp, err := scaleTo(t, h, 4)
		if err == nil {
			id := resp.Migrations[0].ReshardingID
			second.Store(&id)
		}
		scaleErr <- err
	}
	hook.armed.Store(true) // before the scale: see TestReshardScaleRightAfterFinishIsNotLost
	resp, err := scaleTo(t, h, 3)
	require.NoError(t, err)
	waitMigration(t, h, resp.Migrations[0].ReshardingID, reshard.StateDeprecated, a)
	select {
	case err := <-scaleErr:
		require.NoError(t, err, "the scale to 4 shards posted during the driver's unmark")
	case <-time.After(10 * time.Second):
		t.Fatal("the scale to 4 shards posted during the driver's unmark did not return within 10s")
	}
	waitMigration(t, h, *second.Load(), reshard.StateDeprecated, a)
}
