package groupstate

import (
	"fmt"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/assign"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// BenchmarkHeartbeatSteady1000Members evaluates and applies one steady-state heartbeat
// (nothing changes but the lease) in a group of 1,000 members × 10,000 shards.
func BenchmarkHeartbeatSteady1000Members(b *testing.B) {
	g := New(testCfg, "s", "g", 10000, 0)
	now := t0
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprintf("m%04d", i)
	}
	for _, id := range ids { // joins; early members must release, so settle in rounds
		g.Apply(g.Heartbeat(hbFor(id, 0, nil), now).Change)
	}
	for round := 0; round < 3; round++ {
		for _, id := range ids {
			m, _ := g.Member(id)
			g.Apply(g.Heartbeat(hbFor(id, m.Epoch, m.Assigned), now).Change)
		}
	}
	m, _ := g.Member(ids[500])
	if len(m.Pending) > 0 || len(m.Revoking) > 0 || len(m.Assigned) != 10 {
		b.Fatalf("group not settled: %+v", m)
	}
	hb := hbFor(m.ID, m.Epoch, m.Assigned)
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Millisecond)
		d := g.Heartbeat(hb, now)
		if d.Change == nil || d.Change.Durable || d.Response.Status != model.StatusOK {
			b.Fatalf("not steady: %+v", d)
		}
		g.Apply(d.Change)
	}
}

// BenchmarkHeartbeatJoin10kx100k evaluates (without applying) the heartbeat that confirms a new
// member of a stable group of 10,000 members × 100,000 shards (its join, which with admission
// moves no target, is applied first): validation, target recompute and the Change for the
// members whose target moved. This is the end-to-end cost of a membership change.
func BenchmarkHeartbeatJoin10kx100k(b *testing.B) {
	members, target := bigGroup(10000, 100000)
	recs := make([]model.Member, len(members))
	for i, id := range members {
		recs[i] = model.Member{ID: id, State: model.StateActive, Epoch: 1, Target: target[id], Assigned: target[id], JoinedAt: t0, StateSince: t0}
	}
	meta := model.Meta{StreamPrefix: "s", ConsumerGroup: "g", GroupEpoch: 1, AssignmentEpoch: 1, ShardCount: 100000}
	g, err := Restore(testCfg, meta, recs, t0)
	if err != nil {
		b.Fatal(err)
	}
	join := g.Heartbeat(hbFor("member-zzzzzz", 0, nil), t0)
	g.Apply(join.Change)
	hb := hbFor("member-zzzzzz", join.Response.MemberEpoch, nil)
	b.ReportAllocs()
	for b.Loop() {
		d := g.Heartbeat(hb, t0)
		if d.Change == nil || len(d.Change.Members) != 10 {
			b.Fatalf("unexpected change: %d members", len(d.Change.Members))
		}
	}
}

// bigGroup is n members holding a balanced assignment of shards.
func bigGroup(n, shards int) ([]string, map[string][]int) {
	members := make([]string, n)
	for i := range members {
		members[i] = fmt.Sprintf("member-%06d", i)
	}
	return members, assign.Assign(nil, members, shards)
}

// BenchmarkHeartbeatJoin10kx100kCapacity is BenchmarkHeartbeatJoin10kx100k in a group using
// capacity-weighted assignment (capacity.go) whose members report 1..16: compare the two in
// one run (issue 20: capacity ≤ 2× uniform).
func BenchmarkHeartbeatJoin10kx100kCapacity(b *testing.B) {
	members, _ := bigGroup(10000, 1)
	prevOf := make([][]int, len(members))
	weights := make([]int64, len(members))
	for i := range weights {
		weights[i] = int64(1 + i*7%16)
	}
	target := assign.Weighted(prevOf, weights, 100000)
	recs := make([]model.Member, len(members))
	for i, id := range members {
		recs[i] = model.Member{ID: id, State: model.StateActive, Epoch: 1, Target: target[i], Assigned: target[i], JoinedAt: t0, StateSince: t0,
			Capacity: model.Capacity{MaxConcurrency: int(weights[i]), Available: int(weights[i])}}
	}
	meta := model.Meta{StreamPrefix: "s", ConsumerGroup: "g", GroupEpoch: 1, AssignmentEpoch: 1, ShardCount: 100000, Assignment: model.AssignCapacity}
	g, err := Restore(testCfg, meta, recs, t0)
	if err != nil {
		b.Fatal(err)
	}
	join := g.Heartbeat(hbFor("member-zzzzzz", 0, nil), t0)
	g.Apply(join.Change)
	hb := hbFor("member-zzzzzz", join.Response.MemberEpoch, nil)
	b.ReportAllocs()
	for b.Loop() {
		d := g.Heartbeat(hb, t0)
		if d.Change == nil || len(d.Change.Members) < 2 {
			b.Fatalf("unexpected change: %+v", d.Change)
		}
	}
}
