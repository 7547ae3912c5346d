package driver

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Driver drives the migrations of the streams marked as resharding on one
// node. New builds it, Start starts its loop, Stop ends it and gives up its
// driver leases.
type Driver struct {
	n       Node
	o       Options
	timeout time.Duration // one store request's deadline

	mu      sync.Mutex
	running map[string]bool // streams this node drives right now
	held    map[string]bool // failpoint warnings logged
	leases  map[string]bool // streams whose driver lease this node took (released on Stop)

	kick     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// errLeaseLost: the driver's lease ran out (a pause longer than the lease);
// another node may drive the migration now, so this one stops before any
// further side effect.
var errLeaseLost = errors.New("resharding driver lease lost")

// New builds the driver of node n; o is completed with its defaults and
// requestTimeout (default 5 s) bounds every store request the driver makes
// outside a step.
func New(n Node, o Options, requestTimeout time.Duration) *Driver {
	o.Defaults()
	if requestTimeout <= 0 {
		requestTimeout = 5 * time.Second
	}
	return &Driver{
		n: n, o: o, timeout: requestTimeout,
		running: map[string]bool{}, held: map[string]bool{}, leases: map[string]bool{},
		kick: make(chan struct{}, 1), done: make(chan struct{}),
	}
}

// Options returns the driver's options, defaults filled in.
func (d *Driver) Options() Options { return d.o }

// Start starts the driver loop.
func (d *Driver) Start() { go d.loop() }

// Stop ends the driver loop and the drives in progress (before their next
// step) and gives up the driver leases this node holds, so that another
// node continues its migrations at once instead of after the lease (a
// graceful stop: a rolling deploy).
func (d *Driver) Stop() {
	d.stopOnce.Do(func() {
		close(d.done)
		d.releaseLeases()
	})
}

// Kick makes the driver loop run a round now.
func (d *Driver) Kick() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// noteLease records that this node took (or lost) p's driver lease.
func (d *Driver) noteLease(p string, held bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if held {
		d.leases[p] = true
	} else {
		delete(d.leases, p)
	}
}

// releaseLeases gives up the driver leases this node holds.
func (d *Driver) releaseLeases() {
	d.mu.Lock()
	streams := make([]string, 0, len(d.leases))
	for p := range d.leases {
		streams = append(streams, p)
	}
	d.leases = map[string]bool{}
	d.mu.Unlock()
	for _, p := range streams {
		ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
		if err := d.n.Store().ReleaseDriver(ctx, p, d.n.Owner()); err != nil {
			d.n.Logger().Warn("could not release the resharding driver lease; another node takes the migration over when it expires",
				slog.String("stream", p), slog.Any("err", err))
		}
		cancel()
	}
}

// loop drives, every PollInterval (or at once when kicked), the migrations
// of the streams marked as resharding whose driver lease this node holds or
// can take.
func (d *Driver) loop() {
	o := d.o
	if o.HoldState != "" {
		d.n.Logger().Warn("failpoint on: the resharding driver of this node holds every migration in one state",
			slog.String("state", o.HoldState), slog.String("env", "RSC_FAILPOINT_RESHARD_HOLD"))
	}
	t := time.NewTicker(o.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-d.done:
			return
		case <-t.C:
		case <-d.kick:
		}
		if d.n.Refusal() != nil {
			continue // a node that refuses to serve (leaving, evicted, node conflict) drives nothing
		}
		ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
		streams, err := d.n.Store().ReshardingStreams(ctx)
		cancel()
		if err != nil {
			d.n.Logger().Debug("could not list resharding streams; next round retries", slog.Any("err", err))
			continue
		}
		for _, p := range streams {
			if !d.claim(p) {
				continue
			}
			go func() {
				defer d.release(p)
				d.driveStream(p)
			}()
		}
	}
}

// claim marks p as driven on this node; false if it already is (by the loop
// or by a scale request), so that one node never runs two drivers of one
// stream. release ends the claim.
func (d *Driver) claim(p string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.running[p] {
		return false
	}
	d.running[p] = true
	return true
}

func (d *Driver) release(p string) {
	d.mu.Lock()
	delete(d.running, p)
	d.mu.Unlock()
}
