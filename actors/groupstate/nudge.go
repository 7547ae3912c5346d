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
	v := changeView{Before: func(id string) *model.Member { return g.members[id] }, Holder: g.holder.Of,
		Changed: c.Members, Removed: c.Removed}
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
			if !v.touches(id) {
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

// changeView reads a group as it will be once a change is applied: what Nudges decides with.
type changeView struct {
	Before  func(id string) *model.Member // the group's member id before the change (nil: none)
	Holder  func(shard int) string        // who may read shard before the change ("" = free)
	Changed []model.Member                // the change's new member versions
	Removed []string                      // the change's removed members
}

// touches reports whether the change touches member id (a new version, or removed).
func (v changeView) touches(id string) bool {
	return v.version(id) != nil || slices.Contains(v.Removed, id)
}

// version is c's new version of member id, nil when c has none.
func (v changeView) version(id string) *model.Member {
	for i := range v.Changed {
		if v.Changed[i].ID == id {
			return &v.Changed[i]
		}
	}
	return nil
}

// after is member id once c is applied (nil: removed or unknown).
func (v changeView) after(id string) *model.Member {
	if m := v.version(id); m != nil {
		return m
	}
	if slices.Contains(v.Removed, id) {
		return nil
	}
	return v.Before(id)
}

// holdsShard reports whether m may read shard s.
func holdsShard(m *model.Member, s int) bool {
	return m != nil && m.State.Holds() && (shardset.Contains(m.Assigned, s) || shardset.Contains(m.Revoking, s))
}

// heldByOther reports whether a member other than self may still read shard s once c is applied.
func (v changeView) heldByOther(s int, self string) bool {
	if h := v.Holder(s); h != "" && h != self && holdsShard(v.after(h), s) {
		return true
	}
	for i := range v.Changed {
		if m := &v.Changed[i]; m.ID != self && holdsShard(m, s) {
			return true
		}
	}
	return false
}

// freesShards reports whether c releases a shard some member held before it.
func (v changeView) freesShards() bool {
	for _, id := range v.Removed {
		if m := v.Before(id); m != nil && m.State.Holds() && len(m.Assigned)+len(m.Revoking) > 0 {
			return true
		}
	}
	for i := range v.Changed {
		before := v.Before(v.Changed[i].ID)
		if before == nil || !before.State.Holds() {
			continue
		}
		for _, set := range [][]int{before.Assigned, before.Revoking} {
			for _, s := range set {
				if !holdsShard(&v.Changed[i], s) {
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
	before := v.Before(m.ID)
	for _, s := range m.Pending {
		if v.heldByOther(s, m.ID) {
			continue
		}
		if before == nil || !shardset.Contains(before.Pending, s) {
			return true
		}
		if h := v.Holder(s); h != "" && h != m.ID {
			return true // pending before too, but held by another member then
		}
	}
	return false
}
