package host

import (
	"log/slog"
	"sync"
	"time"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// lossState is what the node knows about store data loss: while now is
// before holdUntil, no group of this node grants a shard, and health reports
// DEGRADED with stateLost.
type lossState struct {
	mu         sync.Mutex
	kind       string // which case (loss* constants, group.Loss*)
	reason     string
	detectedAt time.Time
	holdUntil  time.Time // end of the latest hold, of any scope (health)
	nodeUntil  time.Time // end of the node-wide hold
	// groups holds group-only holds recorded before the group was activated
	// here (a claim for a group the store no longer has); expired ones are
	// dropped when read.
	groups map[persistence.GroupKey]time.Time
	// dataSet: the store's data set is young and had no coordinator state
	// before it (dataset.go).
	dataSet group.NewDataSet
}

// Kinds of store data loss the node itself detects (see node.round).
const (
	lossMarkerChanged   = "instance-marker-changed"
	lossRecordVanished  = "node-record-vanished"
	lossRenewsBackwards = "renew-counter-backwards"
)

// stateLost records a node-wide loss: every group of the node, and every
// group activated before the hold ends, grants nothing until until.
func (h *Host) stateLost(kind, reason string, until time.Time) {
	h.loss.mu.Lock()
	if until.After(h.loss.nodeUntil) {
		h.loss.nodeUntil = until
	}
	h.loss.mu.Unlock()
	h.recordLoss(kind, reason, until, "every group of this node")
	msg := &group.StoreLost{Until: until}
	h.mu.Lock()
	for _, pid := range h.groups {
		h.system.Root.Send(pid, msg)
	}
	h.mu.Unlock()
}

// maxGroupHolds bounds the group-only holds a node keeps (each lasts one lease).
const maxGroupHolds = 10_000

// groupStateLost records a hold of one group.
func (h *Host) groupStateLost(key persistence.GroupKey, kind, reason string, until time.Time) {
	h.loss.mu.Lock()
	if h.loss.groups == nil {
		h.loss.groups = map[persistence.GroupKey]time.Time{}
	}
	if _, known := h.loss.groups[key]; !known && len(h.loss.groups) >= maxGroupHolds {
		h.loss.mu.Unlock()
		// Claims for this many different groups at once are a flood (anyone allowed to
		// heartbeat can send them), not a data loss: the node-level checks (instance marker,
		// node record) still catch a real one.
		h.opts.Logger.Debug("group hold not recorded: too many held groups", slog.String("group", key.String()))
		return
	}
	if until.After(h.loss.groups[key]) {
		h.loss.groups[key] = until
	}
	h.loss.mu.Unlock()
	h.recordLoss(kind, key.String()+": "+reason, until, "group "+key.String())
}

func (h *Host) recordLoss(kind, reason string, until time.Time, scope string) {
	now := h.opts.Now()
	h.loss.mu.Lock()
	episode := !now.Before(h.loss.holdUntil) // not already holding: a new episode
	if episode {
		h.loss.kind, h.loss.reason, h.loss.detectedAt = kind, reason, now
	}
	if until.After(h.loss.holdUntil) {
		h.loss.holdUntil = until
	}
	h.loss.mu.Unlock()
	if h.opts.NodeMetrics != nil {
		h.opts.NodeMetrics.StateLost()
	}
	if episode {
		h.opts.Logger.Warn("Redis lost coordinator state ("+reason+"); granting no shard until "+until.UTC().Format(time.RFC3339)+
			" so that members that may still hold shards fence themselves first. "+lossAdvice(kind),
			slog.String("case", kind), slog.String("scope", scope), slog.Duration("hold", until.Sub(now)))
	} else {
		h.opts.Logger.Debug("store data loss seen again", slog.String("case", kind), slog.String("reason", reason), slog.String("scope", scope))
	}
}

// hold returns until when key's grants are held: the node-wide hold or the
// group's own, whichever ends later (zero if none). Group-only holds are
// reported node-wide in health, but only their group holds.
func (h *Host) hold(key persistence.GroupKey) time.Time {
	now := h.opts.Now()
	h.loss.mu.Lock()
	defer h.loss.mu.Unlock()
	until := h.loss.nodeUntil
	for k, t := range h.loss.groups {
		if !now.Before(t) {
			delete(h.loss.groups, k)
		} else if k == key && t.After(until) {
			until = t
		}
	}
	return until
}

// lossReport is the health view while a hold lasts (nil otherwise).
func (h *Host) lossReport(now time.Time) *protocol.StateLost {
	h.loss.mu.Lock()
	defer h.loss.mu.Unlock()
	if !now.Before(h.loss.holdUntil) {
		return nil
	}
	return &protocol.StateLost{Case: h.loss.kind, Reason: h.loss.reason, DetectedAt: h.loss.detectedAt.UTC().Format(time.RFC3339Nano),
		GrantsHeldUntil: h.loss.holdUntil.UTC().Format(time.RFC3339Nano)}
}

// lossAdvice is what the engineer reading a loss WARN should do, per case.
func lossAdvice(kind string) string {
	const why = "find why Redis lost data (docs/OPERATIONS.md, Redis data loss: persistence, replica failover)"
	if kind == group.LossActiveReaders {
		return "The hold ends by itself. If Redis did lose its data, " + why + ". If this is a new deployment on shard streams " +
			"that other consumers still read under the same consumer group name, stop them, or set store.trust-empty-store=true to skip this check"
	}
	return "The hold ends by itself (members keep what they read); " + why +
		". store.trust-empty-store does not skip this hold: it only trusts a Redis that holds no coordinator state at all"
}
