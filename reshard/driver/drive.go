package driver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard"
)

// driveStream runs the steps of the stream's active migration while this
// node holds its driver lease and a step can complete. It returns when the
// migration waits (for groups, a grace, a drain), finished, or failed (the
// next round retries).
func (d *Driver) driveStream(p string) {
	o := d.o
	var leaseUntil time.Time
	renew := func() error {
		if time.Until(leaseUntil) > o.DriverLease/2 {
			return nil
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
		ok, err := d.n.Store().AcquireDriver(ctx, p, d.n.Owner(), o.DriverLease)
		cancel()
		if err != nil || !ok {
			leaseUntil = time.Time{}
			if err == nil {
				d.noteLease(p, false)
				err = errLeaseLost
			}
			return err
		}
		d.noteLease(p, true)
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
		case <-d.done:
			return
		default:
		}
		if err := renew(); err != nil {
			return // another node drives it (or the store is down: next round)
		}
		done, err := d.step(p, valid, leaseUntil)
		if err != nil {
			d.n.Logger().Warn("resharding step failed; retrying on the next round",
				slog.String("stream", p), slog.Any("err", err))
			return
		}
		if done {
			return
		}
	}
}

// DriveNow runs the preparing steps of migration id of stream p on this
// node if it can take the driver lease now (else the driver that holds it
// does), and reports a provisioning that failed (coordinator.ErrUnavailable).
// A scale request calls it after recording (and marking) its migration, so
// that it is answered after its preparing steps.
func (d *Driver) DriveNow(p, id string) error {
	// The driver loop of this node may be on the stream right now (finishing the
	// previous migration, or kicked by this one): wait for it, so that a scale this
	// node can drive is answered after its preparing steps, as when the loop is idle.
	for wait := time.Now().Add(d.timeout / 2); !d.claim(p); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(wait) {
			return nil // the loop goes on driving it
		}
	}
	defer d.release(p)
	ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
	ok, err := d.n.Store().AcquireDriver(ctx, p, d.n.Owner(), d.o.DriverLease)
	cancel()
	if err != nil || !ok {
		return nil // the driver loop (here or elsewhere) takes it from here
	}
	d.noteLease(p, true)
	leaseUntil := time.Now().Add(d.o.DriverLease * 9 / 10)
	valid := func() error {
		if time.Now().After(leaseUntil) {
			return errLeaseLost
		}
		return nil
	}
	for range 4 {
		done, err := d.step(p, valid, leaseUntil)
		if err != nil {
			if errors.Is(err, errLeaseLost) {
				return nil
			}
			if d.stillPreparing(p, id) {
				return fmt.Errorf("migration %s of %s: provisioning failed half-way (%v); nothing was activated and routing is unchanged; the coordinator retries it, or POST the same scale again, or roll it back: %w",
					id, p, err, coordinator.ErrUnavailable)
			}
			return fmt.Errorf("migration %s of %s: a step failed (%v); its outcome may have landed; the coordinator retries it — GET the migration for its state: %w",
				id, p, err, coordinator.ErrUnavailable)
		}
		if done {
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
		rec, err := d.n.Store().GetStream(ctx, p)
		cancel()
		if err != nil {
			return nil
		}
		if l, _ := reshard.Decode(rec.Extra); l.Active == nil || l.Active.ID != id || l.Active.State != reshard.StatePreparing {
			return nil // activated (or moved on): the driver loop continues
		}
	}
	return nil
}

// stillPreparing reports whether migration id of p is recorded as
// PREPARING (true also when the store cannot tell: then nothing is known to
// have been activated by this request either).
func (d *Driver) stillPreparing(p, id string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
	defer cancel()
	rec, err := d.n.Store().GetStream(ctx, p)
	if err != nil {
		return true
	}
	l, err := reshard.Decode(rec.Extra)
	if err != nil {
		return true
	}
	m, ok := l.Find(id)
	return !ok || m.State == reshard.StatePreparing
}

// SaveLayout writes r back into the stream record rec with a
// compare-and-set on its revision (persistence.ErrConflict: it changed
// since rec was read).
func (d *Driver) SaveLayout(ctx context.Context, rec persistence.StreamRecord, r reshard.Record) error {
	rec.ShardCount, rec.MetadataVersion, rec.Extra = r.Routing, r.MetadataVersion, r.Layout.Encode()
	rec.UpdatedAt = d.n.Now()
	_, err := d.n.Store().UpdateStream(ctx, rec, rec.Revision)
	return err
}

func (d *Driver) logStep(p, id string, st reshard.Step, before string, r reshard.Record) {
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
		d.n.Logger().Info("migration state changed", append(attrs, slog.String("from", before), slog.String("to", state))...)
		if m := d.n.Metrics(); m != nil {
			m.MigrationState(p, state)
		}
		return
	}
	d.n.Logger().Debug("migration step done", attrs...)
}
