package groupstate

import "time"

// HoldGrantsUntil makes the group grant no shard (newly, to anyone) before t:
// members still get their target, and what is not granted shows as pending.
// The shell calls it when the store lost state (a member the store does not
// know may still hold shards until its lease runs out). Holds only extend;
// the hold is volatile (a new activation is told again).
func (g *Group) HoldGrantsUntil(t time.Time) {
	if t.After(g.holdUntil) {
		g.holdUntil = t
	}
}

// GrantsHeldUntil returns the end of the current hold (zero: none).
func (g *Group) GrantsHeldUntil() time.Time { return g.holdUntil }

// grantsHeld reports whether grants are held at now.
func (g *Group) grantsHeld(now time.Time) bool { return now.Before(g.holdUntil) }

// Occupies reports whether the member is in the target or may still read a
// shard: while any member of a group occupies it, the group is not idle.
func (m Member) Occupies() bool {
	return inTarget(m.State) || (holds(m.State) && len(m.Assigned)+len(m.Revoking) > 0)
}
