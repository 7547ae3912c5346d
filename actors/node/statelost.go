package node

import (
	"log/slog"
	"sync"
	"time"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// lossState is what the node knows about store data loss: while now is
// before holdUntil, no group of this node grants a shard, and health reports
// DEGRADED with stateLost.
type lossState struct {
	mu         sync.Mutex
	kind       string // which case (loss* constants, groupdeps.Loss*)
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
	dataSet groupdeps.NewDataSet
}

// Kinds of store data loss the node itself detects (see Node.Round).
const (
	LossMarkerChanged   = "instance-marker-changed"
	LossRecordVanished  = "node-record-vanished"
	LossRenewsBackwards = "renew-counter-backwards"
)

// stateLost records a node-wide loss: every group of the node, and every
// group activated before the hold ends, grants nothing until until.
func (n *Node) stateLost(kind, reason string, until time.Time) {
	n.loss.mu.Lock()
	if until.After(n.loss.nodeUntil) {
		n.loss.nodeUntil = until
	}
	n.loss.mu.Unlock()
	n.recordLoss(kind, reason, until, "every group of this node")
	n.opts.Groups.Broadcast(&group.StoreLost{Until: until})
}

// maxGroupHolds bounds the group-only holds a node keeps (each lasts one lease).
const maxGroupHolds = 10_000

// GroupStateLost records a hold of one group (groupdeps.Node).
func (n *Node) GroupStateLost(key persistence.GroupKey, kind, reason string, until time.Time) {
	n.loss.mu.Lock()
	if n.loss.groups == nil {
		n.loss.groups = map[persistence.GroupKey]time.Time{}
	}
	if _, known := n.loss.groups[key]; !known && len(n.loss.groups) >= maxGroupHolds {
		n.loss.mu.Unlock()
		// Claims for this many different groups at once are a flood (anyone allowed to
		// heartbeat can send them), not a data loss: the node-level checks (instance marker,
		// node record) still catch a real one.
		n.opts.Logger.Debug("group hold not recorded: too many held groups", slog.String("group", key.String()))
		return
	}
	if until.After(n.loss.groups[key]) {
		n.loss.groups[key] = until
	}
	n.loss.mu.Unlock()
	n.recordLoss(kind, key.String()+": "+reason, until, "group "+key.String())
}

func (n *Node) recordLoss(kind, reason string, until time.Time, scope string) {
	now := n.opts.Now()
	n.loss.mu.Lock()
	episode := !now.Before(n.loss.holdUntil) // not already holding: a new episode
	if episode {
		n.loss.kind, n.loss.reason, n.loss.detectedAt = kind, reason, now
	}
	if until.After(n.loss.holdUntil) {
		n.loss.holdUntil = until
	}
	n.loss.mu.Unlock()
	if n.opts.Metrics != nil {
		n.opts.Metrics.StateLost()
	}
	if episode {
		n.opts.Logger.Warn("Redis lost coordinator state ("+reason+"); granting no shard until "+until.UTC().Format(time.RFC3339)+
			" so that members that may still hold shards fence themselves first. "+lossAdvice(kind),
			slog.String("case", kind), slog.String("scope", scope), slog.Duration("hold", until.Sub(now)))
	} else {
		n.opts.Logger.Debug("store data loss seen again", slog.String("case", kind), slog.String("reason", reason), slog.String("scope", scope))
	}
}

// Hold returns until when key's grants are held: the node-wide hold or the
// group's own, whichever ends later (zero if none). Group-only holds are
// reported node-wide in health, but only their group holds (groupdeps.Node).
func (n *Node) Hold(key persistence.GroupKey) time.Time {
	now := n.opts.Now()
	n.loss.mu.Lock()
	defer n.loss.mu.Unlock()
	until := n.loss.nodeUntil
	for k, t := range n.loss.groups {
		if !now.Before(t) {
			delete(n.loss.groups, k)
		} else if k == key && t.After(until) {
			until = t
		}
	}
	return until
}

// LossReport is the health view while a hold lasts (nil otherwise).
func (n *Node) LossReport(now time.Time) *protocol.StateLost {
	n.loss.mu.Lock()
	defer n.loss.mu.Unlock()
	if !now.Before(n.loss.holdUntil) {
		return nil
	}
	return &protocol.StateLost{Case: n.loss.kind, Reason: n.loss.reason, DetectedAt: n.loss.detectedAt.UTC().Format(time.RFC3339Nano),
		GrantsHeldUntil: n.loss.holdUntil.UTC().Format(time.RFC3339Nano)}
}

// lossAdvice is what the engineer reading a loss WARN should do, per case.
func lossAdvice(kind string) string {
	const why = "find why Redis lost data (docs/OPERATIONS.md, Redis data loss: persistence, replica failover)"
	if kind == groupdeps.LossActiveReaders {
		return "The hold ends by itself. If Redis did lose its data, " + why + ". If this is a new deployment on shard streams " +
			"that other consumers still read under the same consumer group name, stop them, or set store.trust-empty-store=true to skip this check"
	}
	return "The hold ends by itself (members keep what they read); " + why +
		". store.trust-empty-store does not skip this hold: it only trusts a Redis that holds no coordinator state at all"
}
