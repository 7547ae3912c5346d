package static

import (
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// Index maps the instanceId of every live static member to its member id. The zero value is
// empty and ready to use.
type Index struct{ ids map[string]string }

// Add indexes m if it is a live static member.
func (x *Index) Add(m *model.Member) {
	if m.InstanceID != "" && m.State.InTarget() {
		if x.ids == nil {
			x.ids = map[string]string{}
		}
		x.ids[m.InstanceID] = m.ID
	}
}

// Remove drops m's entry, if m is the member the index names for its instance.
func (x *Index) Remove(m *model.Member) {
	if m.InstanceID != "" && m.State.InTarget() && x.ids[m.InstanceID] == m.ID {
		delete(x.ids, m.InstanceID)
	}
}

// Owner returns the member id holding instance ("" = none).
func (x *Index) Owner(instance string) string {
	if instance == "" {
		return ""
	}
	return x.ids[instance]
}

// Len returns the number of indexed instances.
func (x *Index) Len() int { return len(x.ids) }

// Unheld says why a temporary leave of m (nil: unknown) cannot hold its assignment ("" = it can).
func Unheld(cfg model.Config, hb *model.Heartbeat, m *model.Member) string {
	switch {
	case cfg.StaticSessionTimeout <= 0:
		return "coordination.static-session-timeout is 0 on this coordinator"
	case m == nil || m.State == model.StateExpired:
		return "the member is not known"
	case !m.State.InTarget():
		return fmt.Sprintf("the member is %s", m.State)
	case m.InstanceID != hb.InstanceID:
		return fmt.Sprintf("the member joined with instanceId %q, not %q", m.InstanceID, hb.InstanceID)
	}
	return ""
}

// Leave applies a temporary leave at now to c (a copy of the member's record) that reports
// draining as still held: the hold starts (unless c is already away: the hold is not
// extended), nothing stays assigned, the target stays whole.
func Leave(c *model.Member, draining []int, now time.Time, cfg model.Config) {
	if !c.Away() {
		c.SetSessionDeadline(now.Add(cfg.StaticSessionTimeout))
		c.LeaseDeadline = model.InstantOf(c.SessionDeadline())
		c.Revoking = shardset.Intersect(shardset.Union(c.Assigned, c.Revoking), draining)
		c.RevokeDeadline = 0
		if len(c.Revoking) > 0 {
			c.RevokeDeadline = model.InstantOf(now.Add(cfg.RebalanceTimeout))
		}
	} else {
		c.Revoking = shardset.Intersect(c.Revoking, draining)
	}
	c.LastHeartbeat = model.InstantOf(now)
	if len(c.Revoking) == 0 {
		c.Revoking, c.RevokeDeadline = nil, 0
	}
	c.Assigned, c.Pending = nil, c.Target
}

// Successor is the record of hb's process taking over away member old at now: old's state,
// target and identity, a fresh join otherwise.
func Successor(old *model.Member, hb *model.Heartbeat, now time.Time) *model.Member {
	c := &model.Member{ID: hb.MemberID, Name: old.Name, State: old.State, JoinedAt: now, StateSince: now,
		Target: old.Target, InstanceID: old.InstanceID, Principal: old.Principal, Capacity: hb.Capacity}
	if hb.MemberName != "" {
		c.Name = hb.MemberName
	}
	return c
}

// EndHold ends c's hold, if it is away: a member still holding shards after that (fenced, or
// draining as LEAVING) keeps them for a lease of ttl from its last heartbeat, not for the rest
// of the session timeout. A restore (at restoredAt) keeps no heartbeat time: the member was told
// OK at the latest then, or at its session deadline when the hold ended by the wall clock
// before that, so the lease runs from the later of restoredAt and the earlier of now and the
// session deadline. Never from a timer that fired late (a clock jump, a paused coordinator):
// that would keep a dead member's shards past lease + session timeout.
func EndHold(c *model.Member, now, restoredAt time.Time, ttl time.Duration) {
	if c.Away() {
		last := c.LastHeartbeat.Time()
		if last.IsZero() {
			last = now
			if c.SessionDeadline().Before(last) {
				last = c.SessionDeadline()
			}
			if last.Before(restoredAt) {
				last = restoredAt
			}
		}
		c.LeaseDeadline = model.InstantOf(last.Add(ttl))
	}
	c.SetSessionDeadline(time.Time{})
}

// Depart makes c, an away member that still drains, a LEAVING member at now: out of the
// target, holding only what it drains (EndHold sets its lease).
func Depart(c *model.Member, now, restoredAt time.Time, ttl time.Duration) {
	EndHold(c, now, restoredAt, ttl)
	c.State, c.StateSince = model.StateLeaving, now
	c.Target, c.Pending, c.Assigned = nil, nil, nil
}

// LeftMessage answers a held temporary leave of c.
func LeftMessage(c *model.Member) string {
	return fmt.Sprintf("temporary leave: instance %q keeps its assignment until %s; every shard not reported DRAINING is free now; rejoin with memberEpoch 0 and the same instanceId to get it back",
		c.InstanceID, c.SessionDeadline().UTC().Format(time.RFC3339))
}

// AwayMessage answers a heartbeat at a positive epoch of away member m.
func AwayMessage(m *model.Member) string {
	return fmt.Sprintf("member %q left temporarily (memberEpoch -2); instance %q keeps its assignment until %s: stop reading every shard and rejoin with memberEpoch 0 and the same instanceId",
		m.ID, m.InstanceID, m.SessionDeadline().UTC().Format(time.RFC3339))
}

// RefusedMessage answers a join of hb refused because owner holds its instanceId in group.
func RefusedMessage(hb *model.Heartbeat, owner *model.Member, group string) string {
	why := "it is running"
	if owner.Away() {
		why = fmt.Sprintf("it is away after a temporary leave, and member id %q is already in use here", hb.MemberID)
	}
	return fmt.Sprintf("instanceId %q is held by member %q of group %q (%s); give each process its own instanceId. This process reads nothing and retries joining at the heartbeat interval: the instance is released when that member leaves, hands it over with a temporary leave, or its lease expires",
		hb.InstanceID, owner.ID, group, why)
}

// HandBackMessage answers the join of c taking over from member oldID.
func HandBackMessage(c *model.Member, oldID string) string {
	msg := fmt.Sprintf("instance %q: member %q takes over the assignment of %q", c.InstanceID, c.ID, oldID)
	if len(c.Pending) > 0 {
		msg += fmt.Sprintf("; shards %v follow once the previous process has released them", c.Pending)
	}
	return msg
}
