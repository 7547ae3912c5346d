package groupstate

import (
	"slices"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// Nudges. Over HTTP a member learns that it may be given more only at its next heartbeat; a
// member on the Redis mailbox can be told at once (docs/PROTOCOL.md, "Nudges"): the shell
// pushes {"kind":"nudge"} to its reply list and the member heartbeats now. Which members to
// nudge is decided here, from a change before it is applied: a nudge that reaches nobody, or
// reaches a member twice, costs one heartbeat; a missed one costs what HTTP costs (the member
// heartbeats at its interval). Nudges are advisory and never carry state.

// Nudge is one member to nudge: its id and the principal that joined it ("" when member
// authentication was off), which name its reply list.
type Nudge struct {
	MemberID  string
	Principal string
}

// Nudges lists, sorted by member id, the members to nudge once c (evaluated on g, not applied
// yet) is applied: members in the target whose last heartbeat came through the mailbox, other
// than except (the member whose own heartbeat made c: its answer tells it already), that have
// a pending shard nobody else holds after c which they could not be given before c (it was
// not pending for them, or another member still held it). That is a shard freed by a leave,
// an expiry, a fencing's end or a finished revocation, or a target grown by a scale-out or a
// departure. Call it before g.Apply(c). Nil for a non-durable change (it moves no shard) and
// while grants are held (the nudged member would be given nothing).
func Nudges(g *Group, c *Change, except string, now time.Time) []Nudge {
	if c == nil || !c.Durable || g.holding(now) {
		return nil
	}
	v := changeView{g: g, c: c}
	var out []Nudge
	consider := func(m *model.Member) {
		if m.ID != except && m.Transport == model.TransportRedis && m.State.InTarget() && v.grows(m) {
			out = append(out, Nudge{MemberID: m.ID, Principal: m.Principal})
		}
	}
	for i := range c.Members {
		consider(&c.Members[i])
	}
	if v.freesShards() {
		// Members the change left alone may wait for exactly the shards it freed.
		for id, m := range g.members {
			if !v.changed(id) {
				consider(m)
			}
		}
	}
	slices.SortFunc(out, func(a, b Nudge) int {
		if a.MemberID < b.MemberID {
			return -1
		}
		if a.MemberID > b.MemberID {
			return 1
		}
		return 0
	})
	return out
}

// changeView reads g as it will be once c is applied.
type changeView struct {
	g *Group
	c *Change
}

// changed reports whether c touches member id (a new version, or removed).
func (v changeView) changed(id string) bool {
	return v.version(id) != nil || slices.Contains(v.c.Removed, id)
}

// version is c's new version of member id, nil when c has none.
func (v changeView) version(id string) *model.Member {
	for i := range v.c.Members {
		if v.c.Members[i].ID == id {
			return &v.c.Members[i]
		}
	}
	return nil
}

// after is member id once c is applied (nil: removed or unknown).
func (v changeView) after(id string) *model.Member {
	if m := v.version(id); m != nil {
		return m
	}
	if slices.Contains(v.c.Removed, id) {
		return nil
	}
	return v.g.members[id]
}

func holds(m *model.Member, s int) bool {
	return m != nil && m.State.Holds() && (shardset.Contains(m.Assigned, s) || shardset.Contains(m.Revoking, s))
}

// heldByOther reports whether a member other than self may still read shard s once c is applied.
func (v changeView) heldByOther(s int, self string) bool {
	if h := v.g.holder.Of(s); h != "" && h != self && holds(v.after(h), s) {
		return true
	}
	for i := range v.c.Members {
		if m := &v.c.Members[i]; m.ID != self && holds(m, s) {
			return true
		}
	}
	return false
}

// freesShards reports whether c releases a shard some member held before it.
func (v changeView) freesShards() bool {
	for _, id := range v.c.Removed {
		if m := v.g.members[id]; m != nil && m.State.Holds() && len(m.Assigned)+len(m.Revoking) > 0 {
			return true
		}
	}
	for i := range v.c.Members {
		before := v.g.members[v.c.Members[i].ID]
		if before == nil || !before.State.Holds() {
			continue
		}
		for _, set := range [][]int{before.Assigned, before.Revoking} {
			for _, s := range set {
				if !holds(&v.c.Members[i], s) {
					return true
				}
			}
		}
	}
	return false
}

// grows reports whether m (its version once c is applied) has a pending shard nobody else
// holds that it could not be given before c.
func (v changeView) grows(m *model.Member) bool {
	before := v.g.members[m.ID]
	for _, s := range m.Pending {
		if v.heldByOther(s, m.ID) {
			continue
		}
		if before == nil || !shardset.Contains(before.Pending, s) {
			return true
		}
		if h := v.g.holder.Of(s); h != "" && h != m.ID {
			return true // pending before too, but held by another member then
		}
	}
	return false
}
