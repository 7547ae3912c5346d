package groupstate

import (
	"slices"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// One test per state transition, named after it (files transitions_*_test.go).

func stable2(t testing.TB) *harness {
	h := newHarness(t, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")                              // groupEpoch 2; B unconfirmed: no target yet
	h.send(hbFor("B", 2, nil))               // B confirmed: groupEpoch 3, B's target [2 3]
	h.send(hbFor("A", 1, []int{0, 1, 2, 3})) // told to revoke 2,3
	h.send(hbFor("A", 1, []int{0, 1}))       // released → epoch 3
	h.send(hbFor("B", 3, nil))               // granted 2,3
	h.send(hbFor("B", 3, []int{2, 3}))
	h.send(hbFor("A", 3, []int{0, 1}))
	return h
}

func wantResp(t *testing.T, r model.Response, st model.Status, epoch int64, assigned, pending []int) {
	t.Helper()
	if r.Status != st || r.MemberEpoch != epoch || !slices.Equal(r.Assigned, assigned) || !slices.Equal(r.Pending, pending) {
		t.Fatalf("got %s, want %s epoch=%d assigned=%v pending=%v", fmtResp(r), st, epoch, assigned, pending)
	}
	if r.Assigned == nil || r.Pending == nil {
		t.Fatalf("nil slices in response %+v", r)
	}
}

func TestJoinFirstMemberGetsEveryShard(t *testing.T) {
	h := newHarness(t, 3)
	r := h.join("A")
	wantResp(t, r, model.StatusOK, 1, []int{0, 1, 2}, []int{})
	if m := h.member("A"); m.State != model.StateStarting || !m.LeaseDeadline.Equal(t0.Add(testCfg.LeaseTTL)) {
		t.Fatalf("member %+v", m)
	}
	h.send(hbFor("A", 1, []int{0, 1, 2}))
	if h.member("A").State != model.StateActive {
		t.Fatal("STARTING → ACTIVE on the first accepted heartbeat")
	}
}

func TestJoinSecondMemberGetsPendingShards(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	r := h.join("B")
	wantResp(t, r, model.StatusOK, 2, []int{}, []int{2, 3})
	if id, _ := h.g.Holder(2); id != "A" {
		t.Fatalf("shard 2 must stay with A until released, holder %q", id)
	}
}

func TestRejoinOfLiveMemberReleasesEverything(t *testing.T) {
	h := stable2(t)
	r := h.join("A")
	wantResp(t, r, model.StatusOK, 3, []int{0, 1}, []int{})
	if m := h.member("A"); m.PrevEpoch != 0 || m.State != model.StateActive {
		t.Fatalf("member %+v", m)
	}
	if g := h.g.Meta().GroupEpoch; g != 3 {
		t.Fatalf("a live rejoin must not bump the group epoch, got %d", g)
	}
}

func TestRejoinOfFencedMemberReleasesBlockedShards(t *testing.T) {
	h := stable2(t)
	h.send(hbFor("A", 9, []int{0, 1})) // ahead → fenced, keeps blocking 0,1
	if id, _ := h.g.Holder(0); id != "A" {
		t.Fatalf("fenced A must keep blocking shard 0, holder %q", id)
	}
	r := h.join("A")
	if r.Status != model.StatusOK || h.member("A").State != model.StateStarting {
		t.Fatalf("rejoin: %s", fmtResp(r))
	}
	if g := h.g.Meta().GroupEpoch; g != 5 {
		t.Fatalf("group epoch %d, want 5 (fence + rejoin)", g)
	}
}

func TestRejoinAfterExpiryGetsHigherEpoch(t *testing.T) {
	h := stable2(t)
	h.now = h.now.Add(16 * time.Second)
	h.send(hbFor("B", 3, []int{2, 3}))
	h.apply(h.g.Expire("A", h.now))
	if h.member("A").State != model.StateExpired {
		t.Fatal("A must be EXPIRED")
	}
	r := h.join("A")
	if r.MemberEpoch <= 3 {
		t.Fatalf("epoch regressed: %s", fmtResp(r))
	}
}

func TestLeaveUnknownMemberIsIdempotent(t *testing.T) {
	h := newHarness(t, 2)
	d := h.g.Heartbeat(hbFor("ghost", -1, nil), h.now)
	if d.Change != nil || d.Response.Status != model.StatusOK || d.Response.MemberEpoch != -1 {
		t.Fatalf("got %s %v", fmtResp(d.Response), d.Change)
	}
}

// A leave means "I have stopped reading every shard I do not report DRAINING" (SPEC §4): owned,
// REVOKING, REVOKED and unlisted shards are all free at once.
func TestLeaveDrainingNothingDeletesAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name     string
		owned    []int
		revoking []model.RevokingShard
	}{
		{"empty", nil, nil},
		{"all revoked", nil, []model.RevokingShard{{Shard: 0, State: model.RevokeRevoked}, {Shard: 1, State: model.RevokeRevoked}}},
		{"owned listed", []int{0, 1}, nil},
		{"owned and revoked (Kotlin client)", []int{0}, []model.RevokingShard{{Shard: 1, State: model.RevokeRevoked}}},
		{"owned a shard it was never given", []int{0, 2}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stable2(t)
			r := h.send(hbFor("A", -1, tc.owned, tc.revoking...))
			wantResp(t, r, model.StatusOK, -1, []int{}, []int{})
			if _, ok := h.g.Member("A"); ok {
				t.Fatal("A must be deleted")
			}
			if _, held := h.g.Holder(0); held {
				t.Fatal("shard 0 must be free at once")
			}
			if tg := h.member("B").Target; !slices.Equal(tg, []int{0, 1, 2, 3}) {
				t.Fatalf("B target %v", tg)
			}
		})
	}
}

func TestLeaveWithDrainingBecomesLeaving(t *testing.T) {
	h := stable2(t)
	r := h.send(hbFor("A", -1, []int{0}, drain(1)...))
	wantResp(t, r, model.StatusOK, -1, []int{}, []int{})
	m := h.member("A")
	if m.State != model.StateLeaving || !slices.Equal(m.Revoking, []int{1}) || len(m.Target) != 0 {
		t.Fatalf("member %+v", m)
	}
	if id, _ := h.g.Holder(0); id != "" {
		t.Fatal("owned shard 0 must be free at once")
	}
	if id, _ := h.g.Holder(1); id != "A" {
		t.Fatal("draining shard 1 must stay blocked")
	}
	h.send(hbFor("A", -1, nil, drain(1)...))
	if id, _ := h.g.Holder(1); id != "A" {
		t.Fatal("still draining")
	}
	// REVOKING means the reader has not stopped yet: still blocked.
	h.send(hbFor("A", -1, []int{1}, model.RevokingShard{Shard: 1, State: model.RevokeRevoking}))
	if id, _ := h.g.Holder(1); id != "A" {
		t.Fatal("a shard reported REVOKING in a leave stays blocked")
	}
	h.send(hbFor("A", -1, nil, model.RevokingShard{Shard: 1, State: model.RevokeRevoked}))
	if _, ok := h.g.Member("A"); ok {
		t.Fatal("A deleted once it holds nothing")
	}
}

func TestLeavingMemberWithPositiveEpochIsFenced(t *testing.T) {
	h := stable2(t)
	h.send(hbFor("A", -1, nil, drain(0, 1)...))
	r := h.send(hbFor("A", 2, []int{0, 1}))
	if r.Status != model.StatusFencedMemberEpoch || h.member("A").State != model.StateFenced {
		t.Fatalf("got %s", fmtResp(r))
	}
}
