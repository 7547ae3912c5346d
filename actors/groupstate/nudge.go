package groupstate

import (
	"slices"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/nudge"
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
	v := nudge.View{Before: func(id string) *model.Member { return g.members[id] }, Holder: g.holder.Of,
		Changed: c.Members, Removed: c.Removed}
	var out []Nudge
	consider := func(m *model.Member) {
		if m.ID != except && m.Transport == model.TransportRedis && m.State.InTarget() && v.Grows(m) {
			out = append(out, Nudge{MemberID: m.ID, Principal: m.Principal})
		}
	}
	for i := range c.Members {
		consider(&c.Members[i])
	}
	if v.FreesShards() {
		// Members the change left alone may wait for exactly the shards it freed.
		for id, m := range g.members {
			if !v.Touches(id) {
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
