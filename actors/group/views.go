package group

import (
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Description is every monitoring view of one group, computed in the actor
// from its own state (member actors are never asked: see
// notes on receive-timeouts in docs/ARCHITECTURE.md).
type Description struct {
	Group       protocol.GroupResponse
	Members     protocol.MembersResponse
	Assignments protocol.AssignmentsResponse
	Consumption protocol.ConsumptionResponse
	Err         error
}

func (a *groupActor) describe() *Description {
	meta := a.state.Meta()
	members := a.state.Members()
	d := &Description{
		Group: protocol.GroupResponse{
			StreamPrefix: meta.StreamPrefix, ConsumerGroup: meta.ConsumerGroup,
			GroupEpoch: meta.GroupEpoch, AssignmentEpoch: meta.AssignmentEpoch,
			MetadataVersion: meta.MetadataVersion, ShardCount: meta.ShardCount,
			TargetAssignmentSummary: map[string]int{}, CurrentAssignmentSummary: map[string]int{},
		},
		Members: protocol.MembersResponse{Members: make([]protocol.MemberView, 0, len(members)), RecentEvents: a.events.list()},
		Assignments: protocol.AssignmentsResponse{
			TargetAssignment: map[string][]protocol.ShardID{}, CurrentAssignments: map[string][]protocol.ShardID{},
			RevokeProgress: map[string][]protocol.ShardID{}, RevokeDetails: []protocol.RevokeDetail{},
			InvariantViolations: a.state.CheckInvariants(),
		},
		Consumption: protocol.ConsumptionResponse{Rows: []protocol.ConsumptionRow{}},
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
		d.Members.Members = append(d.Members.Members, a.memberView(m, meta.MetadataVersion))
		if m.State == groupstate.StateExpired {
			continue
		}
		if m.State == groupstate.StateStarting || m.State == groupstate.StateActive {
			live++
			d.Group.TargetAssignmentSummary[m.ID] = len(m.Target)
			d.Assignments.TargetAssignment[m.ID] = protocol.ShardIDs(m.Target)
		}
		held := len(m.Assigned) + len(m.Revoking)
		if held > 0 || m.State != groupstate.StateFenced {
			d.Group.CurrentAssignmentSummary[m.ID] = len(m.Assigned)
			d.Assignments.CurrentAssignments[m.ID] = protocol.ShardIDs(m.Assigned)
		}
		if len(m.Revoking) > 0 || len(m.Pending) > 0 || m.Epoch < meta.AssignmentEpoch && m.State != groupstate.StateFenced {
			reconciling = true
		}
		if len(m.Revoking) > 0 {
			d.Assignments.RevokeProgress[m.ID] = protocol.ShardIDs(m.Revoking)
		}
		for _, s := range m.Revoking {
			d.Assignments.RevokeDetails = append(d.Assignments.RevokeDetails, protocol.RevokeDetail{
				Shard: protocol.ShardID{ShardIndex: s}, From: m.ID, To: targetOwner[s],
				Deadline: stamp(m.RevokeDeadline), FromState: string(m.State), InFlight: a.inFlight[m.ID][s],
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
	ids := make([]string, 0, len(a.progress))
	for id := range a.progress {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	byID := make(map[string]groupstate.Member, len(members))
	for _, m := range members {
		byID[m.ID] = m
	}
	for _, id := range ids {
		m := byID[id]
		for _, p := range a.progress[id] {
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
func (a *groupActor) memberView(m groupstate.Member, metadataVersion int64) protocol.MemberView {
	v := protocol.MemberView{
		MemberID: m.ID, MemberName: m.Name, State: string(m.State), MemberEpoch: m.Epoch,
		MetadataVersion:       metadataVersion,
		RuntimeMaxConcurrency: m.Capacity.MaxConcurrency,
		ActiveConsumerWorkers: max(0, m.Capacity.MaxConcurrency-m.Capacity.Available),
		CurrentAssignment:     protocol.ShardIDs(m.Assigned),
		GrantedAssignment:     protocol.ShardIDs(m.Assigned),
		Revoking:              protocol.ShardIDs(m.Revoking),
		LastHeartbeatAt:       stamp(m.LastHeartbeat),
		MemberLeaseExpiresAt:  stamp(m.LeaseDeadline),
		RebalanceTimeoutMs:    a.deps.Rules.RebalanceTimeout.Milliseconds(),
		ShardProgress:         append([]protocol.ShardProgress{}, a.progress[m.ID]...),
		TargetAssignment:      protocol.ShardIDs(m.Target),
		Pending:               protocol.ShardIDs(m.Pending),
		Capacity:              protocol.Capacity{RuntimeMaxConcurrency: m.Capacity.MaxConcurrency, AvailableConcurrency: m.Capacity.Available},
		JoinedAt:              stamp(m.JoinedAt),
		LeaseExpiresAt:        stamp(m.LeaseDeadline),
		StateSince:            stamp(m.StateSince),
	}
	if len(m.Revoking) > 0 && !m.RevokeDeadline.IsZero() {
		d := stamp(m.RevokeDeadline)
		v.RebalanceDeadlineAt = &d
	}
	return v
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// DebugState is the live actor state of one group on this node.
type DebugState struct {
	Group           string           `json:"group"`
	NodeID          string           `json:"nodeId"`
	Actor           string           `json:"actor"`
	Active          bool             `json:"active"`
	ActivationEpoch int64            `json:"activationEpoch"`
	StoreRevision   int64            `json:"storeRevision"`
	ActivatedAt     string           `json:"activatedAt,omitempty"`
	ConfirmedAt     string           `json:"confirmedAt,omitempty"`
	LastError       string           `json:"lastError,omitempty"`
	Meta            *groupstate.Meta `json:"meta,omitempty"`
	Members         []DebugMember    `json:"members"`
	Holders         map[int]string   `json:"holders"`
}

// DebugMember is one member as its group actor sees it.
type DebugMember struct {
	ID             string `json:"memberId"`
	Actor          string `json:"actor,omitempty"`
	State          string `json:"state"`
	Epoch          int64  `json:"memberEpoch"`
	PrevEpoch      int64  `json:"previousEpoch"`
	LeaseDeadline  string `json:"leaseDeadline,omitempty"`
	LeaseLeftMs    int64  `json:"leaseLeftMs"`
	RevokeDeadline string `json:"revokeDeadline,omitempty"`
	Target         []int  `json:"target"`
	Assigned       []int  `json:"assigned"`
	Pending        []int  `json:"pending"`
	Revoking       []int  `json:"revoking"`
}

func (a *groupActor) debug(ctx actor.Context) *DebugState {
	d := &DebugState{
		Group: a.key.String(), NodeID: a.deps.NodeID, Actor: ctx.Self().String(),
		Active: a.state != nil && !a.stopped, ActivationEpoch: a.activation, StoreRevision: a.revision,
		ActivatedAt: stamp(a.activatedAt), ConfirmedAt: stamp(a.confirmedAt), Members: []DebugMember{}, Holders: map[int]string{},
	}
	if a.lastErr != nil {
		d.LastError = a.lastErr.Error()
	}
	if a.state == nil {
		return d
	}
	meta := a.state.Meta()
	d.Meta = &meta
	now := a.deps.Now()
	for _, m := range a.state.Members() {
		dm := DebugMember{ID: m.ID, State: string(m.State), Epoch: m.Epoch, PrevEpoch: m.PrevEpoch,
			LeaseDeadline: stamp(m.LeaseDeadline), RevokeDeadline: stamp(m.RevokeDeadline),
			Target: nonNil(m.Target), Assigned: nonNil(m.Assigned), Pending: nonNil(m.Pending), Revoking: nonNil(m.Revoking)}
		if !m.LeaseDeadline.IsZero() {
			dm.LeaseLeftMs = m.LeaseDeadline.Sub(now).Milliseconds()
		}
		if ref, ok := a.members[m.ID]; ok {
			dm.Actor = ref.pid.String()
		}
		d.Members = append(d.Members, dm)
	}
	for s := 0; s < meta.ShardCount; s++ {
		if id, ok := a.state.Holder(s); ok {
			d.Holders[s] = id
		}
	}
	return d
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// sample answers a SampleRequest: a shard is owned when it is in the
// Assigned set of a member that has not expired.
func (a *groupActor) sample(ctx actor.Context) *SampleReply {
	if err := a.ready(ctx); err != nil {
		return &SampleReply{Err: err}
	}
	shards := a.state.Meta().ShardCount
	owned := make([]bool, shards)
	unowned := shards
	for _, m := range a.state.Members() {
		if m.State == groupstate.StateExpired {
			continue
		}
		for _, s := range m.Assigned {
			if s >= 0 && s < shards && !owned[s] {
				owned[s] = true
				unowned--
			}
		}
	}
	return &SampleReply{ShardCount: shards, Unowned: unowned}
}
