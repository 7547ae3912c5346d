package group

import (
	"log/slog"
	"strings"
)

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
