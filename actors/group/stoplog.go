package group

import (
	"log/slog"
	"strings"
)

// Why an activation stops or rewrites fences, logged once each.

// logStop logs why this activation ends for good. Fenced by a newer
// activation right after the cluster gained a node is the placement moving
// to it (every group placed on the new node moves once): INFO. Fenced
// otherwise means two nodes ran the group at once (a partition, a node that
// paused): WARN, since members were told RETRY or fenced meanwhile.
func (a *groupActor) logStop(why string) {
	attrs := []any{slog.String("group", a.key.String()), a.reqAttr(), slog.Int64("activation", a.activation), slog.String("reason", why)}
	if strings.HasPrefix(why, "fenced:") && a.deps.Node.PlacementMoved() {
		a.deps.Logger.Info("group actor stopping: the group moved to a node that joined the cluster", attrs...)
		return
	}
	a.deps.Logger.Warn("group actor stopping", attrs...)
}

// logStaleFences logs that this activation found fences ahead of the stored
// state: the previous activation wrote fences and was stopped before its
// state write (fences are written first). Right after the cluster gained a
// node that is the placement moving the group mid-write: INFO. Otherwise a
// write was cut by a store failure or a duplicate activation: WARN. The
// fences are rewritten to the stored holders either way; no member was told
// of the unsaved assignment.
func (a *groupActor) logStaleFences(n int) {
	attrs := []any{slog.String("group", a.key.String()), a.reqAttr(), slog.Int("fences", n)}
	if a.deps.Node.PlacementMoved() {
		a.deps.Logger.Info("shard fences ahead of the group's stored state after the group moved to a node that joined; rewriting them", attrs...)
		return
	}
	a.deps.Logger.Warn("shard fences out of step with the group's stored state (a write was interrupted); rewriting them", attrs...)
}
