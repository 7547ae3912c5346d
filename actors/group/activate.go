package group

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/persistence"
)

// activate takes the group from the store for this actor: it makes sure the
// Redis consumer group exists on every shard (before any shard is handed
// out), takes a new activation epoch (fencing older activations), restores
// the state (members keep the timers the previous activation handed over if
// it released the group gracefully, else get a fresh lease), and applies a
// shard-set change the stream record carries.
func (a *groupActor) activate(ctx actor.Context) error {
	sctx, cancel := a.storeCtx()
	defer cancel()
	stream, err := a.deps.Store.GetStream(sctx, a.key.StreamPrefix)
	if errors.Is(err, persistence.ErrNotFound) {
		a.lastErr = groupmsg.ErrStreamMissing
		return fmt.Errorf("activate %s: %w", a.key, groupmsg.ErrStreamMissing)
	}
	if err != nil {
		a.lastErr = err
		return fmt.Errorf("activate %s: read stream: %w", a.key, err)
	}
	if err := a.ensureConsumerGroup(stream, 0, shardSet(stream)); err != nil {
		a.lastErr = err
		return fmt.Errorf("activate %s: create consumer group on shards: %w", a.key, err)
	}
	start := a.deps.Now() // confirmation counts from here (see onNodeConfirmed); leases from now
	snap, err := a.deps.Store.Activate(sctx, a.key, a.deps.Owner)
	if err != nil {
		a.lastErr = err
		return fmt.Errorf("activate %s: %w", a.key, err)
	}
	// A reshard that switched between the read above and Activate listed the
	// groups before this one was listed (Activate lists it) and will not tell it
	// its new shard set: read the stream again now that the group is listed, and
	// follow it.
	if again, err := a.deps.Store.GetStream(sctx, a.key.StreamPrefix); err == nil && again.MetadataVersion != stream.MetadataVersion {
		if err := a.ensureConsumerGroup(again, 0, shardSet(again)); err != nil {
			a.lastErr = err
			return fmt.Errorf("activate %s: create consumer group on shards: %w", a.key, err)
		}
		stream = again
	}
	servableFrom, err := a.takeover(snap)
	if err != nil {
		a.lastErr = err
		return fmt.Errorf("activate %s: %w", a.key, err)
	}
	if snap.Meta == nil {
		// No stored state: a new group, or a store that lost its data. Make sure the node
		// knows which before anything is granted (it holds grants after a loss); if the
		// store cannot say, do not serve the group yet (members get RETRY).
		if err := a.deps.Node.VerifyStore(); err != nil {
			a.lastErr = err
			return fmt.Errorf("activate %s: cannot check the store for lost data before serving a group with no stored state: %w", a.key, err)
		}
	}
	now := a.deps.Now()
	// Leases (fresh, or the hand-over grace) count from when members can be answered.
	leasesFrom := now
	if servableFrom.After(now) {
		leasesFrom = servableFrom
	}
	state, err := restore(a.deps.Rules, a.key, stream, snap, now, leasesFrom)
	if err != nil {
		a.lastErr = err
		return fmt.Errorf("activate %s: %w", a.key, err)
	}
	if snap.Meta == nil && a.carry != nil {
		// The store lost this group while this actor still knew it: continue its epochs, so
		// that they do not go backwards for anyone who saw them.
		meta := state.Meta()
		meta.GroupEpoch = a.carry.GroupEpoch + 1
		meta.AssignmentEpoch = meta.GroupEpoch
		if carried, err := groupstate.Restore(a.deps.Rules, meta, nil, now); err == nil {
			state = carried
		}
	}
	if hold := a.deps.Node.Hold(a.key); now.Before(hold) {
		state.HoldGrantsUntil(hold)
	}
	a.quietHold(state, now)
	if snap.Meta == nil {
		if err := a.checkPriorReaders(state, stream, now); err != nil {
			a.lastErr = err
			return fmt.Errorf("activate %s: cannot check a new group's shard streams for members of an earlier data set: %w", a.key, err)
		}
	}
	a.activation, a.revision, a.servableFrom, a.needsCheck, a.carry = snap.ActivationEpoch, snap.Revision, servableFrom, false, nil
	a.events.restore(snap.Events) // the fencings and expiries recorded by earlier activations
	if snap.Meta == nil {
		// A new group: store its meta so it is listed and survives restarts.
		meta := state.Meta()
		if err := a.save(&groupstate.Change{Meta: &meta, Durable: true}); err != nil {
			a.lastErr = err
			return fmt.Errorf("activate %s: store new group: %w", a.key, err)
		}
	}
	a.state, a.activatedAt, a.confirmedAt, a.lastErr, a.unsure = state, now, start, nil, false
	a.fenceBook().activated() // checked (and repaired) before the group answers (fence.go)
	meta := state.Meta()
	if streamChanged(stream, meta.ShardCount, meta.MetadataVersion) {
		if c := state.Resize(shardSet(stream), stream.MetadataVersion); c != nil {
			if err := a.persist(ctx, c); err != nil {
				a.state = nil
				return fmt.Errorf("activate %s: apply stream metadata: %w", a.key, err)
			}
			a.state.Apply(c)
		}
	}
	for _, m := range a.state.Members() {
		a.armMember(ctx, m.ID)
	}
	// Refresh the live-group index for this epoch: mark an occupied group (an entry of an
	// older activation would not let this one unmark it), unmark an idle one (a stale entry
	// would make the sweep activate it again and again).
	a.idleSince, a.liveMarked = time.Time{}, a.state.Occupied() == 0
	a.syncLive()
	a.deps.Metrics.Activated()
	a.reportMembers()
	a.deps.Logger.Info("group activated", slog.String("group", a.key.String()),
		slog.Int64("activation", a.activation), slog.Int64("groupEpoch", meta.GroupEpoch),
		slog.Int("members", len(snap.Members)), slog.Bool("leasesHandedOver", snap.Handover != nil),
		slog.Duration("handoverAge", snap.HandoverAge))
	return nil
}

// takeover tells every earlier owner this activation fenced (their node's
// next renewal sees it and re-checks their activations) and returns when
// this activation may answer: validity after the last notice completed, by
// which time every fenced activation has stopped answering (docs/RELIABILITY.md).
// A group released by passivation, or held by this node incarnation, needs no wait.
func (a *groupActor) takeover(snap persistence.GroupSnapshot) (time.Time, error) {
	if len(snap.Fenced) == 0 {
		return time.Time{}, nil
	}
	sctx, cancel := a.storeCtx()
	defer cancel()
	for _, owner := range snap.Fenced {
		if _, err := a.deps.Store.NotifyTakeover(sctx, owner); err != nil {
			return time.Time{}, fmt.Errorf("tell %s of the takeover: %w", owner, err)
		}
	}
	from := a.deps.Now().Add(a.validity())
	if err := a.deps.Store.ClearTakeover(sctx, a.key, snap.ActivationEpoch); err != nil {
		// Harmless: the next activation tells them again.
		a.deps.Logger.Debug("could not clear the takeover list", slog.String("group", a.key.String()), slog.Any("err", err))
	}
	a.deps.Logger.Info("group taken over from another node; answering once its activation has stopped",
		slog.String("group", a.key.String()), slog.Any("previousOwners", snap.Fenced), slog.Time("answeringFrom", from))
	return from, nil
}

// restore rebuilds the rules state from a snapshot (or a new group) at now.
// The members keep the timers of a hand-over the snapshot carries (released
// at now − HandoverAge); one that cannot be decoded is ignored. Fresh leases,
// and the hand-over grace, count from leasesFrom (≥ now: when the activation
// starts answering).
func restore(rules model.Config, key persistence.GroupKey, stream persistence.StreamRecord, snap persistence.GroupSnapshot, now, leasesFrom time.Time) (*groupstate.Group, error) {
	if snap.Meta == nil {
		return groupstate.New(rules, key.StreamPrefix, key.ConsumerGroup, shardSet(stream), stream.MetadataVersion), nil
	}
	var meta model.Meta
	if err := json.Unmarshal(snap.Meta, &meta); err != nil {
		return nil, fmt.Errorf("decode stored group meta: %w", err)
	}
	ids := make([]string, 0, len(snap.Members))
	for id := range snap.Members {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	members := make([]model.Member, 0, len(ids))
	for _, id := range ids {
		var m model.Member
		if err := json.Unmarshal(snap.Members[id], &m); err != nil {
			return nil, fmt.Errorf("decode stored member %q: %w", id, err)
		}
		members = append(members, m)
	}
	if snap.Handover != nil {
		if leases, err := decodeHandover(snap.Handover, now.Add(-snap.HandoverAge)); err == nil {
			return groupstate.RestoreHandedOver(rules, meta, members, leases, now.Add(-snap.HandoverAge), leasesFrom)
		}
	}
	return groupstate.Restore(rules, meta, members, leasesFrom)
}
