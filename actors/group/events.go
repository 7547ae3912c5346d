package group

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A group's recent member events: which members a change moves into FENCED or EXPIRED and
// why (transitions), and the bounded ring of the latest ones that the members view lists and
// the store keeps with the group (eventRing). No decision reads them.

// maxRecentEvents bounds the fencings and expiries a group remembers (and
// stores: persistence.GroupChange.Events).
const maxRecentEvents = 20

// eventRing is a ring of the group's latest fencings and expiries, for
// the members view only (protocol.MembersResponse.RecentEvents): no decision
// reads it. It is stored with the write that records each fencing or expiry
// (that write happens anyway), and read back on activation, so the list
// survives the group's move to another node.
type eventRing struct {
	buf  []protocol.MemberEvent
	next int // the oldest event (overwritten next) once buf is full
}

// add adds e, dropping the oldest event when full.
func (r *eventRing) add(e protocol.MemberEvent) {
	if len(r.buf) < maxRecentEvents {
		r.buf = append(r.buf, e)
		return
	}
	r.buf[r.next] = e
	r.next = (r.next + 1) % len(r.buf)
}

// list returns a copy of the events, newest first.
func (r *eventRing) list() []protocol.MemberEvent {
	out := make([]protocol.MemberEvent, 0, len(r.buf))
	for i := len(r.buf) - 1; i >= 0; i-- {
		out = append(out, r.buf[(r.next+i)%len(r.buf)])
	}
	return out
}

// encodeWith is the stored record of the ring with evs added (the ring is
// not changed: the write may fail). JSON, newest first.
func (r *eventRing) encodeWith(evs []protocol.MemberEvent) []byte {
	next := eventRing{buf: append([]protocol.MemberEvent(nil), r.buf...), next: r.next}
	for _, e := range evs {
		next.add(e)
	}
	b, err := json.Marshal(next.list())
	if err != nil {
		return nil // cannot happen (plain strings and numbers); the events are then not stored
	}
	return b
}

// restore replaces the ring with a stored record (newest first). A record
// that does not decode leaves the ring empty: the list is for monitoring.
func (r *eventRing) restore(b []byte) {
	*r = eventRing{}
	var stored []protocol.MemberEvent
	if len(b) == 0 || json.Unmarshal(b, &stored) != nil {
		return
	}
	if len(stored) > maxRecentEvents {
		stored = stored[:maxRecentEvents]
	}
	for i := len(stored) - 1; i >= 0; i-- {
		r.add(stored[i])
	}
}

// Causes of the events that no heartbeat explains: the group's timers fence
// a member that did not finish revoking in time, and expire one whose lease
// ran out.
const (
	causeRevokeTimeout = "did not finish revoking within the rebalance timeout"
	causeLeaseExpired  = "lease expired: no heartbeat within the member lease TTL"
)

// transitions lists the members that change c moves into FENCED or EXPIRED
// (compared with state, before c is applied). fenceCause is why a heartbeat
// was refused with a fencing ("" when a timer fenced it); now is read for an
// event without a StateSince.
func transitions(state *groupstate.Group, c *groupstate.Change, fenceCause string, now func() time.Time) []protocol.MemberEvent {
	if state == nil || !c.Durable {
		return nil
	}
	var out []protocol.MemberEvent
	for i := range c.Members {
		m := &c.Members[i]
		if m.State != model.StateFenced && m.State != model.StateExpired {
			continue
		}
		if was, ok := state.Member(m.ID); ok && was.State == m.State {
			continue
		}
		out = append(out, eventOf(m, fenceCause, now))
	}
	return out
}

// eventOf is member m's transition into FENCED or EXPIRED. fenceCause is why a
// heartbeat was refused with a fencing ("" when a timer fenced it).
func eventOf(m *model.Member, fenceCause string, now func() time.Time) protocol.MemberEvent {
	e := protocol.MemberEvent{MemberID: m.ID, State: string(m.State), MemberEpoch: m.Epoch, At: stamp(m.StateSince)}
	if e.At == "" {
		e.At = stamp(now())
	}
	switch {
	case m.State == model.StateExpired:
		e.Cause = causeLeaseExpired
	case fenceCause != "":
		e.Cause, _, _ = strings.Cut(fenceCause, "; stop reading")
	default:
		e.Cause = causeRevokeTimeout
	}
	return e
}
