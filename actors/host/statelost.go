package host

import (
	"log/slog"
	"sync"
	"time"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/api/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// lossState is what the node knows about store data loss: while now is
// before holdUntil, no group of this node grants a shard, and health reports
// DEGRADED with stateLost.
type lossState struct {
	mu         sync.Mutex
	reason     string
	detectedAt time.Time
	holdUntil  time.Time // end of the latest hold, of any scope (health)
	nodeUntil  time.Time // end of the node-wide hold
	// groups holds group-only holds recorded before the group was activated
	// here (a claim for a group the store no longer has); expired ones are
	// dropped when read.
	groups map[persistence.GroupKey]time.Time
}

// stateLost records a node-wide loss: every group of the node, and every
// group activated before the hold ends, grants nothing until until.
func (h *Host) stateLost(reason string, until time.Time) {
	h.loss.mu.Lock()
	if until.After(h.loss.nodeUntil) {
		h.loss.nodeUntil = until
	}
	h.loss.mu.Unlock()
	h.recordLoss(reason, until, "every group of this node")
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
func (h *Host) groupStateLost(key persistence.GroupKey, reason string, until time.Time) {
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
	h.recordLoss(key.String()+": "+reason, until, "group "+key.String())
}

func (h *Host) recordLoss(reason string, until time.Time, scope string) {
	now := h.opts.Now()
	h.loss.mu.Lock()
	episode := !now.Before(h.loss.holdUntil) // not already holding: a new episode
	if episode {
		h.loss.reason, h.loss.detectedAt = reason, now
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
			" so that members that may still hold shards fence themselves; see docs/OPERATIONS.md for the Redis persistence settings that prevent this",
			slog.String("scope", scope), slog.Duration("hold", until.Sub(now)))
	} else {
		h.opts.Logger.Debug("store data loss seen again", slog.String("reason", reason), slog.String("scope", scope))
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
	return &protocol.StateLost{Reason: h.loss.reason, DetectedAt: h.loss.detectedAt.UTC().Format(time.RFC3339Nano),
		GrantsHeldUntil: h.loss.holdUntil.UTC().Format(time.RFC3339Nano)}
}
