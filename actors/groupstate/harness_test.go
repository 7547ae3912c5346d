package groupstate

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

var testCfg = model.Config{HeartbeatInterval: 3 * time.Second, LeaseTTL: 15 * time.Second,
	RebalanceTimeout: 60 * time.Second, Retention: time.Minute}

// harness drives a Group like the shell does: evaluate → (persist) → Apply, with a fake clock,
// checking purity and invariants after every step.
type harness struct {
	tb  testing.TB
	g   *Group
	now time.Time
	req int
}

func newHarness(tb testing.TB, shards int) *harness {
	return &harness{tb: tb, g: New(testCfg, "orders", "workers", shards, 0), now: t0}
}

type snapshot struct {
	Meta    model.Meta
	Members []model.Member
}

func snap(g *Group) snapshot { return snapshot{g.Meta(), g.Members()} }

func hbFor(id string, epoch int64, owned []int, revoking ...model.RevokingShard) model.Heartbeat {
	return model.Heartbeat{ProtocolVersion: 1, RequestID: "r", PathMemberID: id, MemberID: id,
		MemberEpoch: epoch, Capacity: model.Capacity{MaxConcurrency: 4, Available: 4}, Owned: owned, Revoking: revoking}
}

// rounds runs n heartbeat rounds: every live member, in id order, heartbeats at its epoch
// owning what it was assigned (it releases revoked shards at once).
func (h *harness) rounds(n int) {
	h.tb.Helper()
	for range n {
		for _, m := range h.g.Members() {
			if m.State.InTarget() {
				hb := hbFor(m.ID, m.Epoch, m.Assigned)
				hb.Capacity = m.Capacity // what it last reported (capacity scenarios vary it)
				h.send(hb)
			}
		}
	}
}

// drain lists shards as DRAINING revokingShards entries.
func drain(shards ...int) []model.RevokingShard {
	out := make([]model.RevokingShard, len(shards))
	for i, s := range shards {
		out[i] = model.RevokingShard{Shard: s, State: model.RevokeDraining, InFlight: 1}
	}
	return out
}

// send evaluates a heartbeat, verifies the evaluation did not touch the group, applies it.
func (h *harness) send(hb model.Heartbeat) model.Response {
	h.tb.Helper()
	before := snap(h.g)
	d := h.g.Heartbeat(hb, h.now)
	if after := snap(h.g); !reflect.DeepEqual(before, after) {
		h.tb.Fatalf("Heartbeat mutated the group:\nbefore %+v\nafter  %+v", before, after)
	}
	checkSteadyAgrees(h.tb, h.g, hb, h.now, d)
	if d.Change == nil && d.Response.Status == model.StatusOK && hb.MemberEpoch > 0 {
		h.tb.Fatalf("accepted heartbeat without a change (lease must be renewed)")
	}
	applyChecked(h.tb, h.g, d.Change)
	h.check()
	return d.Response
}

func (h *harness) apply(c *Change) {
	h.tb.Helper()
	applyChecked(h.tb, h.g, c)
	h.check()
}

func (h *harness) check() {
	h.tb.Helper()
	if v := h.g.CheckInvariants(); len(v) > 0 {
		h.tb.Fatalf("invariants violated:\n  %s", strings.Join(v, "\n  "))
	}
}

func (h *harness) join(id string) model.Response { return h.send(hbFor(id, 0, nil)) }

func (h *harness) member(id string) model.Member {
	h.tb.Helper()
	m, ok := h.g.Member(id)
	if !ok {
		h.tb.Fatalf("member %s not found", id)
	}
	return m
}

// fmtInts prints a shard set compactly.
func fmtInts(s []int) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// table renders the group compactly and deterministically.
func table(g *Group) string {
	var b strings.Builder
	m := g.Meta()
	fmt.Fprintf(&b, "group epoch=%d assignment=%d mv=%d shards=%d live=%d",
		m.GroupEpoch, m.AssignmentEpoch, m.MetadataVersion, m.ShardCount, g.Live())
	if m.Assignment != "" {
		fmt.Fprintf(&b, " mode=%s", m.Assignment)
	}
	b.WriteString(pausedNote(g) + "\n")
	for _, mm := range g.Members() {
		fmt.Fprintf(&b, "  %s %s epoch=%d prev=%d target=%s assigned=%s revoking=%s pending=%s\n",
			mm.ID, mm.State, mm.Epoch, mm.PrevEpoch, fmtInts(mm.Target), fmtInts(mm.Assigned), fmtInts(mm.Revoking), fmtInts(mm.Pending))
		if mm.Incarnation != "" || mm.Principal != "" {
			fmt.Fprintf(&b, "    incarnation=%q principal=%q\n", mm.Incarnation, mm.Principal)
		}
		if mm.Transport != "" {
			fmt.Fprintf(&b, "    transport=%s\n", mm.Transport)
		}
		if mm.InstanceID != "" {
			fmt.Fprintf(&b, "    instance=%q", mm.InstanceID)
			if mm.Away() {
				fmt.Fprintf(&b, " away until +%s", mm.SessionDeadline().Sub(t0))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("  holders:")
	n := m.ShardCount
	for s := 0; s < n; s++ {
		id, ok := g.Holder(s)
		if !ok {
			id = "-"
		}
		fmt.Fprintf(&b, " %d:%s", s, id)
	}
	for s := n; s < n+64; s++ {
		if id, ok := g.Holder(s); ok {
			fmt.Fprintf(&b, " %d:%s", s, id)
		}
	}
	return b.String()
}

func fmtResp(r model.Response) string {
	s := fmt.Sprintf("%s epoch=%d assigned=%s pending=%s group=%d assignment=%d mv=%d",
		r.Status, r.MemberEpoch, fmtInts(r.Assigned), fmtInts(r.Pending), r.GroupEpoch, r.AssignmentEpoch, r.MetadataVersion)
	if r.Limit != "" {
		s += " limit=" + r.Limit
	}
	if r.Message != "" {
		s += "\n  msg: " + r.Message
	}
	return s
}

func fmtChange(c *Change) string {
	if c == nil {
		return "no change"
	}
	var ids []string
	for _, m := range c.Members {
		ids = append(ids, m.ID+":"+string(m.State))
	}
	s := fmt.Sprintf("change durable=%v members=%s", c.Durable, strings.Join(ids, ","))
	if len(c.Removed) > 0 {
		s += " removed=" + strings.Join(c.Removed, ",")
	}
	if c.Meta != nil {
		s += fmt.Sprintf(" meta(group=%d assignment=%d)", c.Meta.GroupEpoch, c.Meta.AssignmentEpoch)
	}
	return s
}
