package group

import (
	"slices"
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The monitoring views of one group (groupmsg.Description: group, members, assignments,
// consumption) and its ownership sample, built from the rules' state and what the group actor
// knows of its members' activity. Pure functions of their arguments; the actor's methods
// only gather them.

// describe is every monitoring view of the group (describeGroup).
func (a *groupActor) describe() *groupmsg.Description {
	return describeGroup(a.state, activity{
		Events: a.events.list(), InFlight: a.inFlight, Progress: a.progress, RebalanceTimeout: a.deps.Rules.RebalanceTimeout,
	})
}

// activity is what a group actor knows about its members beyond the rules' state.
type activity struct {
	Events           []protocol.MemberEvent              // recent member transitions, oldest first
	InFlight         map[string]map[int]int              // member → revoking shard → reported in-flight
	Progress         map[string][]protocol.ShardProgress // member → reported shard progress
	RebalanceTimeout time.Duration
}

// describeGroup is every monitoring view of one group from its state and its members' activity.
func describeGroup(state *groupstate.Group, act activity) *groupmsg.Description {
	meta := state.Meta()
	members := state.Members()
	d := &groupmsg.Description{
		Group: protocol.GroupResponse{
			StreamPrefix: meta.StreamPrefix, ConsumerGroup: meta.ConsumerGroup,
			GroupEpoch: meta.GroupEpoch, AssignmentEpoch: meta.AssignmentEpoch,
			MetadataVersion: meta.MetadataVersion, ShardCount: meta.ShardCount,
			Assignment:              string(meta.Assignment.Effective()),
			TargetAssignmentSummary: map[string]int{}, CurrentAssignmentSummary: map[string]int{},
			Rebalancing: protocol.RebalancingActive,
		},
		Members: protocol.MembersResponse{Members: make([]protocol.MemberView, 0, len(members)), RecentEvents: act.Events},
		Assignments: protocol.AssignmentsResponse{
			TargetAssignment: map[string][]protocol.ShardID{}, CurrentAssignments: map[string][]protocol.ShardID{},
			RevokeProgress: map[string][]protocol.ShardID{}, RevokeDetails: []protocol.RevokeDetail{},
			InvariantViolations: state.CheckInvariants(),
		},
		Consumption: protocol.ConsumptionResponse{Rows: []protocol.ConsumptionRow{}},
	}
	if p := meta.Paused; p.IsSet() {
		d.Group.Rebalancing = protocol.RebalancingPaused
		d.Group.RebalancingPause = &protocol.RebalancingPause{RequestedBy: p.RequestedBy, Reason: p.Reason, Since: stamp(p.Since)}
	}
	if d.Assignments.InvariantViolations == nil {
		d.Assignments.InvariantViolations = []string{}
	}
	targetOwner := map[int]string{}
	live, reconciling := 0, false
	for _, m := range members {
		for _, s := range m.Target {
			targetOwner[s] = m.ID
		}
	}
	for _, m := range members {
		d.Members.Members = append(d.Members.Members, memberView(m, meta.MetadataVersion, act))
		if m.State == model.StateExpired {
			continue
		}
		if m.State == model.StateStarting || m.State == model.StateActive {
			live++
			d.Group.TargetAssignmentSummary[m.ID] = len(m.Target)
			d.Assignments.TargetAssignment[m.ID] = protocol.ShardIDs(m.Target)
		}
		held := len(m.Assigned) + len(m.Revoking)
		if held > 0 || m.State != model.StateFenced {
			d.Group.CurrentAssignmentSummary[m.ID] = len(m.Assigned)
			d.Assignments.CurrentAssignments[m.ID] = protocol.ShardIDs(m.Assigned)
		}
		if len(m.Revoking) > 0 || len(m.Pending) > 0 || m.Epoch < meta.AssignmentEpoch && m.State != model.StateFenced {
			reconciling = true
		}
		if len(m.Revoking) > 0 {
			d.Assignments.RevokeProgress[m.ID] = protocol.ShardIDs(m.Revoking)
		}
		for _, s := range m.Revoking {
			d.Assignments.RevokeDetails = append(d.Assignments.RevokeDetails, protocol.RevokeDetail{
				Shard: protocol.ShardID{ShardIndex: s}, From: m.ID, To: targetOwner[s],
				Deadline: stamp(m.RevokeDeadline.Time()), FromState: string(m.State), InFlight: act.InFlight[m.ID][s],
			})
		}
	}
	switch {
	case live == 0:
		d.Group.State = protocol.GroupEmpty
	case meta.GroupEpoch > meta.AssignmentEpoch:
		d.Group.State = protocol.GroupAssigning
	case reconciling:
		d.Group.State = protocol.GroupReconciling
	default:
		d.Group.State = protocol.GroupStable
	}
	ids := make([]string, 0, len(act.Progress))
	for id := range act.Progress {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	byID := make(map[string]model.Member, len(members))
	for _, m := range members {
		byID[m.ID] = m
	}
	for _, id := range ids {
		m := byID[id]
		for _, p := range act.Progress[id] {
			d.Consumption.Rows = append(d.Consumption.Rows, protocol.ConsumptionRow{
				StreamPrefix: meta.StreamPrefix, ConsumerGroup: meta.ConsumerGroup,
				MemberID: id, MemberName: m.Name, MemberState: string(m.State),
				Shard: p.Shard, StreamKey: p.StreamKey, LastDeliveredID: p.LastDeliveredID,
				LastAckedID: p.LastAckedID, PendingCount: p.PendingCount, UpdatedAt: p.UpdatedAt,
			})
		}
	}
	return d
}

// memberView is one member in the monitoring shape (reference field names
// first, ours after; see protocol.MemberView).
func memberView(m model.Member, metadataVersion int64, act activity) protocol.MemberView {
	v := protocol.MemberView{
		MemberID: m.ID, MemberName: m.Name, State: string(m.State), MemberEpoch: m.Epoch,
		MetadataVersion:       metadataVersion,
		RuntimeMaxConcurrency: m.Capacity.MaxConcurrency,
		ActiveConsumerWorkers: max(0, m.Capacity.MaxConcurrency-m.Capacity.Available),
		CurrentAssignment:     protocol.ShardIDs(m.Assigned),
		GrantedAssignment:     protocol.ShardIDs(m.Assigned),
		Revoking:              protocol.ShardIDs(m.Revoking),
		LastHeartbeatAt:       stamp(m.LastHeartbeat.Time()),
		MemberLeaseExpiresAt:  stamp(m.LeaseDeadline.Time()),
		RebalanceTimeoutMs:    act.RebalanceTimeout.Milliseconds(),
		ShardProgress:         append([]protocol.ShardProgress{}, act.Progress[m.ID]...),
		TargetAssignment:      protocol.ShardIDs(m.Target),
		Pending:               protocol.ShardIDs(m.Pending),
		Capacity:              protocol.Capacity{RuntimeMaxConcurrency: m.Capacity.MaxConcurrency, AvailableConcurrency: m.Capacity.Available},
		JoinedAt:              stamp(m.JoinedAt),
		LeaseExpiresAt:        stamp(m.LeaseDeadline.Time()),
		StateSince:            stamp(m.StateSince),
		Transport:             transportOf(m),
	}
	v.InstanceID = m.InstanceID
	if m.Away() {
		v.HeldUntil = stamp(m.SessionDeadline())
	}
	if len(m.Revoking) > 0 && !m.RevokeDeadline.IsZero() {
		d := stamp(m.RevokeDeadline.Time())
		v.RebalanceDeadlineAt = &d
	}
	return v
}

// transportOf names how m's last accepted heartbeat arrived, as the views show it: "http"
// (a record keeps "" for it) or "redis".
func transportOf(m model.Member) string {
	if m.Transport == "" {
		return model.TransportHTTP
	}
	return m.Transport
}

// stamp is t as the views show it: RFC 3339 in UTC with nanoseconds, "" when zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// sample answers a SampleRequest (sampleOf).
func (a *groupActor) sample(ctx actor.Context) *groupmsg.SampleReply {
	if err := a.ready(ctx); err != nil {
		return &groupmsg.SampleReply{Err: err}
	}
	return sampleOf(a.state)
}

// sampleOf is the ownership sample of a group: a shard is owned when it is in the Assigned set
// of a member that has not expired. Revoking counts the shards live members were told to
// release and have not released; Waiting, the shards a live member may still read although
// they are outside its target and it was not told to release them yet (held back by the
// move cap or a paused rebalancing).
func sampleOf(state *groupstate.Group) *groupmsg.SampleReply {
	shards := state.Meta().ShardCount
	owned := make([]bool, shards)
	staying := make([]bool, shards) // the member's target and revoking shards, one member at a time
	mark := func(set []int, v bool) {
		for _, s := range set {
			if s >= 0 && s < shards {
				staying[s] = v
			}
		}
	}
	out := &groupmsg.SampleReply{ShardCount: shards, Unowned: shards, PausedSince: state.Meta().Paused.Since}
	for _, m := range state.Members() {
		if m.State == model.StateExpired {
			continue
		}
		out.Revoking += len(m.Revoking)
		mark(m.Target, true)
		mark(m.Revoking, true)
		for _, s := range m.Assigned {
			if s < 0 || s >= shards { // outside the shard count (a scale-in under way)
				if !slices.Contains(m.Target, s) && !slices.Contains(m.Revoking, s) {
					out.Waiting++
				}
				continue
			}
			if !owned[s] {
				owned[s] = true
				out.Unowned--
			}
			if !staying[s] {
				out.Waiting++
			}
		}
		mark(m.Target, false)
		mark(m.Revoking, false)
	}
	return out
}
