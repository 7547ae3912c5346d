package group

import (
	"strings"

	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/api/protocol"
)

// maxRecentEvents bounds the fencings and expiries a group actor remembers.
const maxRecentEvents = 32

// recentEvents is a ring of the group's latest fencings and expiries, for
// the members view only (protocol.MembersResponse.RecentEvents): no decision
// reads it, and it is not stored, so a group starts with none on each
// activation.
type recentEvents struct {
	buf  []protocol.MemberEvent
	next int // the oldest event (overwritten next) once buf is full
}

func (r *recentEvents) add(e protocol.MemberEvent) {
	if len(r.buf) < maxRecentEvents {
		r.buf = append(r.buf, e)
		return
	}
	r.buf[r.next] = e
	r.next = (r.next + 1) % len(r.buf)
}

// list returns a copy of the events, newest first.
func (r *recentEvents) list() []protocol.MemberEvent {
	out := make([]protocol.MemberEvent, 0, len(r.buf))
	for i := len(r.buf) - 1; i >= 0; i-- {
		out = append(out, r.buf[(r.next+i)%len(r.buf)])
	}
	return out
}

// Causes of the events that no heartbeat explains: the group's timers fence
// a member that did not finish revoking in time, and expire one whose lease
// ran out.
const (
	causeRevokeTimeout = "did not finish revoking within the rebalance timeout"
	causeLeaseExpired  = "lease expired: no heartbeat within the member lease TTL"
)

// noteEvent records member m's transition into FENCED or EXPIRED. fenceCause
// is why a heartbeat was refused with a fencing ("" when a timer fenced it).
func (a *groupActor) noteEvent(m *groupstate.Member, fenceCause string) {
	e := protocol.MemberEvent{MemberID: m.ID, State: string(m.State), MemberEpoch: m.Epoch, At: stamp(m.StateSince)}
	if e.At == "" {
		e.At = stamp(a.deps.Now())
	}
	switch {
	case m.State == groupstate.StateExpired:
		e.Cause = causeLeaseExpired
	case fenceCause != "":
		e.Cause, _, _ = strings.Cut(fenceCause, "; stop reading")
	default:
		e.Cause = causeRevokeTimeout
	}
	a.events.add(e)
}
