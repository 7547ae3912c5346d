package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard"
)

// ReshardOptions configure the resharding driver (config keys resharding.*).
type ReshardOptions struct {
	// RoutingGrace: how long after a routing change producers may still write
	// with the older routing (at least their routing cache lifetime). Removed
	// shards are retired no earlier. Default 60 s.
	RoutingGrace time.Duration
	// PollInterval: how often each node looks for migrations to drive.
	// Default 1 s.
	PollInterval time.Duration
	// RetiredRetention: how long a retired shard stream is kept (renamed)
	// before Redis expires it. Default 7 days.
	RetiredRetention time.Duration
	// History: finished migrations kept per stream. Default 20.
	History int
	// DriverLease: the driver lease of a stream's migration; another node
	// takes the migration over within about this long after its driver died.
	// Default 10 s.
	DriverLease time.Duration
	// HoldState (a failpoint for tests): the driver does not move a migration
	// out of this public state. Empty: off.
	HoldState string
}

func (o *ReshardOptions) defaults() {
	if o.RoutingGrace <= 0 {
		o.RoutingGrace = 60 * time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.RetiredRetention <= 0 {
		o.RetiredRetention = 7 * 24 * time.Hour
	}
	if o.History <= 0 {
		o.History = 20
	}
	if o.DriverLease <= 0 {
		o.DriverLease = 10 * time.Second
	}
}

// reshardState is the driver's bookkeeping on this node.
type reshardState struct {
	mu      sync.Mutex
	running map[string]bool // streams this node drives right now
	kick    chan struct{}
	held    map[string]bool // failpoint warnings logged
	leases  map[string]bool // streams whose driver lease this node took (released on Stop)
}

// noteLease records that this node took (or lost) p's driver lease.
func (h *Host) noteLease(p string, held bool) {
	h.rs.mu.Lock()
	defer h.rs.mu.Unlock()
	if held {
		h.rs.leases[p] = true
	} else {
		delete(h.rs.leases, p)
	}
}

// releaseReshardLeases gives up the driver leases this node holds, so that
// another node continues its migrations at once instead of after the lease
// (a graceful stop: a rolling deploy).
func (h *Host) releaseReshardLeases() {
	h.rs.mu.Lock()
	streams := make([]string, 0, len(h.rs.leases))
	for p := range h.rs.leases {
		streams = append(streams, p)
	}
	h.rs.leases = map[string]bool{}
	h.rs.mu.Unlock()
	for _, p := range streams {
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.RequestTimeout)
		if err := h.opts.Store.ReleaseDriver(ctx, p, h.node.owner); err != nil {
			h.opts.Logger.Warn("could not release the resharding driver lease; another node takes the migration over when it expires",
				slog.String("stream", p), slog.Any("err", err))
		}
		cancel()
	}
}

// reshardLoop drives, every PollInterval (or at once when kicked), the
// migrations of the streams marked as resharding whose driver lease this
// node holds or can take.
func (h *Host) reshardLoop() {
	o := h.opts.Resharding
	if o.HoldState != "" {
		h.opts.Logger.Warn("failpoint on: the resharding driver of this node holds every migration in one state",
			slog.String("state", o.HoldState), slog.String("env", "RSC_FAILPOINT_RESHARD_HOLD"))
	}
	t := time.NewTicker(o.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case <-t.C:
		case <-h.rs.kick:
		}
		if h.refusal() != nil {
			continue // a node that refuses to serve (leaving, evicted, node conflict) drives nothing
		}
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.RequestTimeout)
		streams, err := h.opts.Store.ReshardingStreams(ctx)
		cancel()
		if err != nil {
			h.opts.Logger.Debug("could not list resharding streams; next round retries", slog.Any("err", err))
			continue
		}
		for _, p := range streams {
			if !h.claimStream(p) {
				continue
			}
			go func() {
				defer h.releaseStream(p)
				h.driveStream(p)
			}()
		}
	}
}

// claimStream marks p as driven on this node; false if it already is (by
// the loop or by a scale request), so that one node never runs two drivers
// of one stream. releaseStream ends the claim.
func (h *Host) claimStream(p string) bool {
	h.rs.mu.Lock()
	defer h.rs.mu.Unlock()
	if h.rs.running[p] {
		return false
	}
	h.rs.running[p] = true
	return true
}

func (h *Host) releaseStream(p string) {
	h.rs.mu.Lock()
	delete(h.rs.running, p)
	h.rs.mu.Unlock()
}

// kickReshard makes the driver loop run a round now.
func (h *Host) kickReshard() {
	select {
	case h.rs.kick <- struct{}{}:
	default:
	}
}

// errLeaseLost: the driver's lease ran out (a pause longer than the lease);
// another node may drive the migration now, so this one stops before any
// further side effect.
var errLeaseLost = errors.New("resharding driver lease lost")

// driveStream runs the steps of the stream's active migration while this
// node holds its driver lease and a step can complete. It returns when the
// migration waits (for groups, a grace, a drain), finished, or failed (the
// next round retries).
func (h *Host) driveStream(p string) {
	o := h.opts.Resharding
	var leaseUntil time.Time
	renew := func() error {
		if time.Until(leaseUntil) > o.DriverLease/2 {
			return nil
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.RequestTimeout)
		ok, err := h.opts.Store.AcquireDriver(ctx, p, h.node.owner, o.DriverLease)
		cancel()
		if err != nil || !ok {
			leaseUntil = time.Time{}
			if err == nil {
				h.noteLease(p, false)
				err = errLeaseLost
			}
			return err
		}
		h.noteLease(p, true)
		// Valid until a lease after the request was sent, less a margin for clock rate.
		leaseUntil = start.Add(o.DriverLease * 9 / 10)
		return nil
	}
	valid := func() error {
		if time.Now().After(leaseUntil) {
			return errLeaseLost
		}
		return nil
	}
	for range 64 { // a bound per round; the next round continues
		select {
		case <-h.done:
			return
		default:
		}
		if err := renew(); err != nil {
			return // another node drives it (or the store is down: next round)
		}
		done, err := h.reshardStep(p, valid, leaseUntil)
		if err != nil {
			h.opts.Logger.Warn("resharding step failed; retrying on the next round",
				slog.String("stream", p), slog.Any("err", err))
			return
		}
		if done {
			return
		}
	}
}

// reshardStep runs the current step of p's active migration and records it
// done. done reports that the driver should stop for this round (waiting,
// finished, held).
func (h *Host) reshardStep(p string, valid func() error, leaseUntil time.Time) (done bool, err error) {
	// Side effects end with the lease: a driver that outlived it (a pause) must not
	// act any more — another node may be driving the migration by now.
	ctx, cancel := context.WithDeadline(context.Background(), leaseUntil)
	defer cancel()
	rec, err := h.opts.Store.GetStream(ctx, p)
	if errors.Is(err, persistence.ErrNotFound) {
		_ = h.opts.Store.UnmarkResharding(ctx, p)
		return true, nil
	}
	if err != nil {
		return true, err
	}
	l, err := reshard.Decode(rec.Extra)
	if err != nil {
		return true, err
	}
	m := l.Active
	if m == nil {
		if err := h.opts.Store.UnmarkResharding(ctx, p); err != nil {
			return true, err
		}
		// A scale may have recorded a migration (after its own mark) between the read
		// above and the unmark: look again, and mark it again if so.
		if again, err := h.opts.Store.GetStream(ctx, p); err == nil {
			if l2, err := reshard.Decode(again.Extra); err == nil && l2.Active != nil {
				return false, h.opts.Store.MarkResharding(ctx, p)
			}
		} else if !errors.Is(err, persistence.ErrNotFound) {
			_ = h.opts.Store.MarkResharding(ctx, p) // cannot tell: keep looking
			return true, err
		}
		_ = h.opts.Store.ReleaseDriver(ctx, p, h.node.owner)
		h.noteLease(p, false)
		return true, nil
	}
	if hold := h.opts.Resharding.HoldState; hold != "" && m.State == hold {
		h.rs.mu.Lock()
		first := !h.rs.held[m.ID+hold]
		h.rs.held[m.ID+hold] = true
		h.rs.mu.Unlock()
		if first {
			h.opts.Logger.Warn("failpoint: migration held", slog.String("stream", p), slog.String("migration", m.ID), slog.String("state", hold))
		}
		return true, nil
	}
	st, _ := m.Current()
	before := string(rec.Extra) // r shares l's migration: compare encodings, not the values
	r := reshard.Record{Routing: rec.ShardCount, MetadataVersion: rec.MetadataVersion, Layout: l, Keep: h.opts.Resharding.History}
	now := h.opts.Now()
	if err := valid(); err != nil {
		return true, err
	}
	wait, err := h.runStep(ctx, p, &r, m, st, valid)
	if err != nil {
		if r.Wait(m.ID, "retrying after: "+err.Error(), now) {
			_ = h.saveLayout(ctx, rec, r) // best effort: shows the operator why
		}
		return true, err
	}
	if wait {
		if string(r.Layout.Encode()) != before {
			if err := valid(); err != nil {
				return true, err
			}
			if err := h.saveLayout(ctx, rec, r); err != nil && !errors.Is(err, persistence.ErrConflict) {
				return true, err
			}
		}
		return true, nil
	}
	prevState := m.State
	if err := r.Complete(m.ID, m.Next, h.opts.NodeID, now); err != nil {
		return true, err
	}
	if err := valid(); err != nil {
		return true, err
	}
	if err := h.saveLayout(ctx, rec, r); err != nil {
		if errors.Is(err, persistence.ErrConflict) {
			return false, nil // a rollback or another driver moved it on: reload
		}
		return true, err
	}
	h.logStep(p, m.ID, st, prevState, r)
	return false, nil
}

// saveLayout writes r back into the stream record with a compare-and-set on
// its revision.
func (h *Host) saveLayout(ctx context.Context, rec persistence.StreamRecord, r reshard.Record) error {
	rec.ShardCount, rec.MetadataVersion, rec.Extra = r.Routing, r.MetadataVersion, r.Layout.Encode()
	rec.UpdatedAt = h.opts.Now()
	_, err := h.opts.Store.UpdateStream(ctx, rec, rec.Revision)
	return err
}

func (h *Host) logStep(p, id string, st reshard.Step, before string, r reshard.Record) {
	state := before
	if r.Layout.Active != nil {
		state = r.Layout.Active.State
	} else if len(r.Layout.History) > 0 {
		state = r.Layout.History[0].State
	}
	attrs := []any{slog.String("stream", p), slog.String("migration", id), slog.String("step", st.Kind),
		slog.Int("routingShards", r.Routing), slog.Int("consumedShards", r.Layout.ConsumeCount(r.Routing)),
		slog.Int64("metadataVersion", r.MetadataVersion)}
	if state != before {
		h.opts.Logger.Info("migration state changed", append(attrs, slog.String("from", before), slog.String("to", state))...)
		if h.opts.ReshardMetrics != nil {
			h.opts.ReshardMetrics.MigrationState(p, state)
		}
		return
	}
	h.opts.Logger.Debug("migration step done", attrs...)
}

// runStep runs the side effects of step st of migration m (all idempotent).
// wait reports that the step cannot complete yet; r records progress.
func (h *Host) runStep(ctx context.Context, p string, r *reshard.Record, m *reshard.Migration, st reshard.Step, valid func() error) (wait bool, err error) {
	now := h.opts.Now()
	switch st.Kind {
	case reshard.KindSwitch, reshard.KindFinish:
		return false, nil
	case reshard.KindGrace:
		if grace := h.opts.Resharding.RoutingGrace; !r.Layout.GraceOver(grace, now) {
			r.Wait(m.ID, fmt.Sprintf("producers may still route with the routing before the last change (at %s) until %s; shards are retired after that (resharding.routing-grace %s)",
				r.Layout.LastRoutingChange().UTC().Format(time.RFC3339), r.Layout.GraceUntil(grace).UTC().Format(time.RFC3339), grace), now)
			return true, nil
		}
		return false, nil
	case reshard.KindProvision:
		return false, h.provisionShards(ctx, p, st.Shards, reshard.FenceBase(r.MetadataVersion+1))
	case reshard.KindResize:
		n, err := h.resizeGroups(ctx, p, r.Layout.ConsumeCount(r.Routing), r.MetadataVersion, m.ID)
		if err != nil {
			r.Wait(m.ID, fmt.Sprintf("telling the groups their new shard set: %d not yet (%v)", n, err), now)
			return true, nil
		}
		return false, nil
	case reshard.KindRetire:
		return h.retireShards(ctx, p, r, m, st, valid)
	case reshard.KindFences:
		keys, err := h.opts.Store.ListGroups(ctx, p)
		if err != nil {
			return false, err
		}
		for _, k := range keys {
			if err := valid(); err != nil {
				return true, err
			}
			if err := h.opts.Provisioner.DeleteFences(ctx, p, k.ConsumerGroup, st.Shards); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("unknown resharding step %q", st.Kind)
}

// provisionShards creates the shard streams, every stored group's consumer
// group on them (from the start) and their fences at base.
func (h *Host) provisionShards(ctx context.Context, p string, shards []int, base int64) error {
	if len(shards) == 0 {
		return nil
	}
	from, to := shards[0], shards[len(shards)-1]+1
	if err := h.opts.Provisioner.EnsureStreams(ctx, p, from, to); err != nil {
		return fmt.Errorf("provision shard streams %d..%d: %w", from, to-1, err)
	}
	keys, err := h.opts.Store.ListGroups(ctx, p)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if ctx.Err() != nil {
			return errLeaseLost
		}
		if err := h.opts.Provisioner.EnsureGroup(ctx, p, k.ConsumerGroup, from, to); err != nil {
			return fmt.Errorf("create consumer group %s on shards %d..%d: %w", k.ConsumerGroup, from, to-1, err)
		}
		if err := h.opts.Provisioner.SeedFences(ctx, p, k.ConsumerGroup, shards, base); err != nil {
			return err
		}
	}
	return nil
}

// resizeGroups tells every stored group of p its shard set (activating it
// where the cluster places it); n is how many did not confirm.
func (h *Host) resizeGroups(ctx context.Context, p string, count int, mv int64, migration string) (n int, err error) {
	keys, err := h.opts.Store.ListGroups(ctx, p)
	if err != nil {
		return 0, err
	}
	var mu sync.Mutex
	var first error
	h.eachGroup(keys, func(k persistence.GroupKey) {
		res, err := h.ask(ctx, k, &group.ResizeRequest{ShardCount: count, MetadataVersion: mv, RequestID: migration})
		if err == nil {
			if er, ok := res.(*group.ErrorReply); ok && er.Err != nil {
				err = er.Err
			}
		}
		if err != nil && errors.Is(h.groupErr(k, err), coordinator.ErrGroupNotFound) {
			err = nil // deleted meanwhile: nothing to tell
		}
		if err != nil {
			mu.Lock()
			n++
			if first == nil {
				first = fmt.Errorf("group %s: %w", k, err)
			}
			mu.Unlock()
		}
	})
	return n, first
}

// retireShards tries to retire every shard of st not retired yet.
func (h *Host) retireShards(ctx context.Context, p string, r *reshard.Record, m *reshard.Migration, st reshard.Step, valid func() error) (wait bool, err error) {
	now := h.opts.Now()
	left := 0
	for _, i := range st.Shards {
		if s := m.Shard(i); s != nil && s.State == reshard.ShardRetired {
			continue
		}
		if err := valid(); err != nil {
			return true, err
		}
		key := reshard.RetiredKey(protocol.StreamKey(p, i), m.ID)
		res, err := h.opts.Provisioner.RetireShard(ctx, p, i, key, h.opts.Resharding.RetiredRetention)
		if err != nil {
			return true, err
		}
		if res.Retired {
			r.Retired(m.ID, i, key, now)
			if res.Missing {
				h.opts.Logger.Info("shard stream to retire did not exist", slog.String("stream", p), slog.Int("shard", i), slog.String("migration", m.ID))
			} else {
				h.opts.Logger.Info("shard retired", slog.String("stream", p), slog.Int("shard", i), slog.String("retiredKey", key),
					slog.Duration("kept", h.opts.Resharding.RetiredRetention), slog.String("migration", m.ID))
			}
			continue
		}
		left++
		b := make([]reshard.Backlog, 0, len(res.Blocked))
		for _, g := range res.Blocked {
			b = append(b, reshard.Backlog{Group: g.Group, Pending: g.Pending, Lag: g.Lag})
		}
		r.Blocked(m.ID, i, b, now)
	}
	if left > 0 {
		r.Wait(m.ID, fmt.Sprintf("draining: consumer groups still have entries pending or undelivered on %d shard(s)", left), now)
		return true, nil
	}
	return false, nil
}
