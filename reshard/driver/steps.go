package driver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard"
)

// step runs the current step of p's active migration and records it done.
// done reports that the driver should stop for this round (waiting,
// finished, held).
func (d *Driver) step(p string, valid func() error, leaseUntil time.Time) (done bool, err error) {
	// Side effects end with the lease: a driver that outlived it (a pause) must not
	// act any more — another node may be driving the migration by now.
	ctx, cancel := context.WithDeadline(context.Background(), leaseUntil)
	defer cancel()
	store := d.n.Store()
	rec, err := store.GetStream(ctx, p)
	if errors.Is(err, persistence.ErrNotFound) {
		_ = store.UnmarkResharding(ctx, p)
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
		if err := store.UnmarkResharding(ctx, p); err != nil {
			return true, err
		}
		// A scale may have recorded a migration (after its own mark) between the read
		// above and the unmark: look again, and mark it again if so.
		if again, err := store.GetStream(ctx, p); err == nil {
			if l2, err := reshard.Decode(again.Extra); err == nil && l2.Active != nil {
				return false, store.MarkResharding(ctx, p)
			}
		} else if !errors.Is(err, persistence.ErrNotFound) {
			_ = store.MarkResharding(ctx, p) // cannot tell: keep looking
			return true, err
		}
		_ = store.ReleaseDriver(ctx, p, d.n.Owner())
		d.noteLease(p, false)
		return true, nil
	}
	if hold := d.o.HoldState; hold != "" && m.State == hold {
		d.mu.Lock()
		first := !d.held[m.ID+hold]
		d.held[m.ID+hold] = true
		d.mu.Unlock()
		if first {
			d.n.Logger().Warn("failpoint: migration held", slog.String("stream", p), slog.String("migration", m.ID), slog.String("state", hold))
		}
		return true, nil
	}
	st, _ := m.Current()
	before := string(rec.Extra) // r shares l's migration: compare encodings, not the values
	r := reshard.Record{Routing: rec.ShardCount, MetadataVersion: rec.MetadataVersion, Layout: l, Keep: d.o.History}
	now := d.n.Now()
	if err := valid(); err != nil {
		return true, err
	}
	wait, err := d.runStep(ctx, p, &r, m, st, valid)
	if err != nil {
		if r.Wait(m.ID, "retrying after: "+err.Error(), now) {
			_ = d.SaveLayout(ctx, rec, r) // best effort: shows the operator why
		}
		return true, err
	}
	if wait {
		if string(r.Layout.Encode()) != before {
			if err := valid(); err != nil {
				return true, err
			}
			if err := d.SaveLayout(ctx, rec, r); err != nil && !errors.Is(err, persistence.ErrConflict) {
				return true, err
			}
		}
		return true, nil
	}
	prevState := m.State
	if err := r.Complete(m.ID, m.Next, d.n.NodeID(), now); err != nil {
		return true, err
	}
	if err := valid(); err != nil {
		return true, err
	}
	if err := d.SaveLayout(ctx, rec, r); err != nil {
		if errors.Is(err, persistence.ErrConflict) {
			return false, nil // a rollback or another driver moved it on: reload
		}
		return true, err
	}
	d.logStep(p, m.ID, st, prevState, r)
	return false, nil
}

// runStep runs the side effects of step st of migration m (all idempotent).
// wait reports that the step cannot complete yet; r records progress.
func (d *Driver) runStep(ctx context.Context, p string, r *reshard.Record, m *reshard.Migration, st reshard.Step, valid func() error) (wait bool, err error) {
	now := d.n.Now()
	switch st.Kind {
	case reshard.KindSwitch, reshard.KindFinish:
		return false, nil
	case reshard.KindGrace:
		if grace := d.o.RoutingGrace; !r.Layout.GraceOver(grace, now) {
			r.Wait(m.ID, fmt.Sprintf("producers may still route with the routing before the last change (at %s) until %s; shards are retired after that (resharding.routing-grace %s)",
				r.Layout.LastRoutingChange().UTC().Format(time.RFC3339), r.Layout.GraceUntil(grace).UTC().Format(time.RFC3339), grace), now)
			return true, nil
		}
		return false, nil
	case reshard.KindProvision:
		return false, d.provisionShards(ctx, p, st.Shards, reshard.FenceBase(r.MetadataVersion+1))
	case reshard.KindResize:
		n, err := d.n.ResizeGroups(ctx, p, r.Layout.ConsumeCount(r.Routing), r.MetadataVersion, m.ID)
		if err != nil {
			r.Wait(m.ID, fmt.Sprintf("telling the groups their new shard set: %d not yet (%v)", n, err), now)
			return true, nil
		}
		return false, nil
	case reshard.KindRetire:
		return d.retireShards(ctx, p, r, m, st, valid)
	case reshard.KindFences:
		keys, err := d.n.Store().ListGroups(ctx, p)
		if err != nil {
			return false, err
		}
		for _, k := range keys {
			if err := valid(); err != nil {
				return true, err
			}
			if err := d.n.Provisioner().DeleteFences(ctx, p, k.ConsumerGroup, st.Shards); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("unknown resharding step %q", st.Kind)
}

// provisionShards creates the shard streams, every stored group's consumer
// group on them (from the start) and their fences at base.
func (d *Driver) provisionShards(ctx context.Context, p string, shards []int, base int64) error {
	if len(shards) == 0 {
		return nil
	}
	prov := d.n.Provisioner()
	from, to := shards[0], shards[len(shards)-1]+1
	if err := prov.EnsureStreams(ctx, p, from, to); err != nil {
		return fmt.Errorf("provision shard streams %d..%d: %w", from, to-1, err)
	}
	keys, err := d.n.Store().ListGroups(ctx, p)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if ctx.Err() != nil {
			return errLeaseLost
		}
		if err := prov.EnsureGroup(ctx, p, k.ConsumerGroup, from, to); err != nil {
			return fmt.Errorf("create consumer group %s on shards %d..%d: %w", k.ConsumerGroup, from, to-1, err)
		}
		if err := prov.SeedFences(ctx, p, k.ConsumerGroup, shards, base); err != nil {
			return err
		}
	}
	return nil
}

// retireShards tries to retire every shard of st not retired yet.
func (d *Driver) retireShards(ctx context.Context, p string, r *reshard.Record, m *reshard.Migration, st reshard.Step, valid func() error) (wait bool, err error) {
	now := d.n.Now()
	keep := d.o.RetiredRetention
	left := 0
	for _, i := range st.Shards {
		if s := m.Shard(i); s != nil && s.State == reshard.ShardRetired {
			continue
		}
		if err := valid(); err != nil {
			return true, err
		}
		key := reshard.RetiredKey(protocol.StreamKey(p, i), m.ID)
		res, err := d.n.Provisioner().RetireShard(ctx, p, i, key, keep)
		if err != nil {
			return true, err
		}
		if res.Retired {
			r.Retired(m.ID, i, key, now)
			if res.Missing {
				d.n.Logger().Info("shard stream to retire did not exist", slog.String("stream", p), slog.Int("shard", i), slog.String("migration", m.ID))
			} else {
				d.n.Logger().Info("shard retired", slog.String("stream", p), slog.Int("shard", i), slog.String("retiredKey", key),
					slog.Duration("kept", keep), slog.String("migration", m.ID))
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
