package groupstate

import (
	"slices"
	"testing"
	"time"
)

// One test per state transition, named after it.

// stable2 builds A (0,1) + B (2,3), both at epoch 2, reconciled.
func stable2(t *testing.T) *harness {
	h := newHarness(t, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3})) // told to revoke 2,3
	h.send(hbFor("A", 1, []int{0, 1}))       // released → epoch 2
	h.send(hbFor("B", 2, nil))               // granted 2,3
	h.send(hbFor("B", 2, []int{2, 3}))
	h.send(hbFor("A", 2, []int{0, 1}))
	return h
}

func wantResp(t *testing.T, r Response, st Status, epoch int64, assigned, pending []int) {
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
	wantResp(t, r, StatusOK, 1, []int{0, 1, 2}, []int{})
	if m := h.member("A"); m.State != StateStarting || m.LeaseDeadline != t0.Add(testCfg.LeaseTTL) {
		t.Fatalf("member %+v", m)
	}
	h.send(hbFor("A", 1, []int{0, 1, 2}))
	if h.member("A").State != StateActive {
		t.Fatal("STARTING → ACTIVE on the first accepted heartbeat")
	}
}

func TestJoinSecondMemberGetsPendingShards(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	r := h.join("B")
	wantResp(t, r, StatusOK, 2, []int{}, []int{2, 3})
	if id, _ := h.g.Holder(2); id != "A" {
		t.Fatalf("shard 2 must stay with A until released, holder %q", id)
	}
}

func TestRejoinOfLiveMemberReleasesEverything(t *testing.T) {
	h := stable2(t)
	r := h.join("A")
	wantResp(t, r, StatusOK, 2, []int{0, 1}, []int{})
	if m := h.member("A"); m.PrevEpoch != 0 || m.State != StateStarting {
		t.Fatalf("member %+v", m)
	}
	if g := h.g.Meta().GroupEpoch; g != 2 {
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
	if r.Status != StatusOK || h.member("A").State != StateStarting {
		t.Fatalf("rejoin: %s", fmtResp(r))
	}
	if g := h.g.Meta().GroupEpoch; g != 4 {
		t.Fatalf("group epoch %d, want 4 (fence + rejoin)", g)
	}
}

func TestRejoinAfterExpiryGetsHigherEpoch(t *testing.T) {
	h := stable2(t)
	h.now = h.now.Add(16 * time.Second)
	h.send(hbFor("B", 2, []int{2, 3}))
	h.apply(h.g.Expire("A", h.now))
	if h.member("A").State != StateExpired {
		t.Fatal("A must be EXPIRED")
	}
	r := h.join("A")
	if r.MemberEpoch <= 2 {
		t.Fatalf("epoch regressed: %s", fmtResp(r))
	}
}

func TestLeaveUnknownMemberIsIdempotent(t *testing.T) {
	h := newHarness(t, 2)
	d := h.g.Heartbeat(hbFor("ghost", -1, nil), h.now)
	if d.Change != nil || d.Response.Status != StatusOK || d.Response.MemberEpoch != -1 {
		t.Fatalf("got %s %v", fmtResp(d.Response), d.Change)
	}
}

func TestLeaveOwningNothingDeletesAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name     string
		owned    []int
		revoking []RevokingShard
	}{
		{"empty", nil, nil},
		{"all revoked", nil, []RevokingShard{{Shard: 0, State: RevokeRevoked}, {Shard: 1, State: RevokeRevoked}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stable2(t)
			r := h.send(hbFor("A", -1, tc.owned, tc.revoking...))
			wantResp(t, r, StatusOK, -1, []int{}, []int{})
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

func TestLeaveWithOwnedBecomesLeaving(t *testing.T) {
	h := stable2(t)
	r := h.send(hbFor("A", -1, []int{0, 1}))
	wantResp(t, r, StatusOK, -1, []int{}, []int{})
	m := h.member("A")
	if m.State != StateLeaving || !slices.Equal(m.Revoking, []int{0, 1}) || len(m.Target) != 0 {
		t.Fatalf("member %+v", m)
	}
	h.send(hbFor("A", -1, []int{1}))
	if id, _ := h.g.Holder(0); id != "" {
		t.Fatal("shard 0 released")
	}
	h.send(hbFor("A", -1, nil))
	if _, ok := h.g.Member("A"); ok {
		t.Fatal("A deleted once it holds nothing")
	}
}

func TestLeavingMemberWithPositiveEpochIsFenced(t *testing.T) {
	h := stable2(t)
	h.send(hbFor("A", -1, []int{0, 1}))
	r := h.send(hbFor("A", 2, []int{0, 1}))
	if r.Status != StatusFencedMemberEpoch || h.member("A").State != StateFenced {
		t.Fatalf("got %s", fmtResp(r))
	}
}

func TestPreviousEpochAccepted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		owned []int
		want  Status
	}{
		{"owned subset of assigned", []int{0, 1}, StatusOK},
		{"owned empty", nil, StatusOK},
		{"owned beyond assigned", []int{0, 1, 2}, StatusFencedMemberEpoch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stable2(t) // A: epoch 2, prev 1, assigned 0,1
			r := h.send(hbFor("A", 1, tc.owned))
			if r.Status != tc.want {
				t.Fatalf("got %s", fmtResp(r))
			}
			if tc.want == StatusOK && r.MemberEpoch != 2 {
				t.Fatalf("accepted as current must answer the current epoch: %s", fmtResp(r))
			}
		})
	}
}

func TestStaleOrAheadEpochFenced(t *testing.T) {
	for _, epoch := range []int64{1, 3, 100} {
		h := stable2(t)
		h.send(hbFor("B", 2, []int{2, 3}))
		// B: epoch 2, prev 0 → epoch 1 is stale (not prev), 3 and 100 are ahead.
		before := h.g.Meta().GroupEpoch
		r := h.send(hbFor("B", epoch, []int{2, 3}))
		if r.Status != StatusFencedMemberEpoch || h.member("B").State != StateFenced {
			t.Fatalf("epoch %d: %s", epoch, fmtResp(r))
		}
		if h.g.Meta().GroupEpoch != before+1 {
			t.Fatalf("fencing a live member bumps the group epoch")
		}
		if id, _ := h.g.Holder(2); id != "B" {
			t.Fatalf("fenced member keeps blocking its shards")
		}
	}
}

func TestFenceOnUnownedClaim(t *testing.T) {
	for _, tc := range []struct {
		name     string
		owned    []int
		revoking []RevokingShard
	}{
		{"owned shard of another member", []int{0, 1, 2}, nil},
		{"owned shard beyond shardCount", []int{0, 1, 4}, nil},
		{"draining shard never given", []int{0, 1}, []RevokingShard{{Shard: 3, State: RevokeDraining}}},
		{"revoking shard never given", []int{0}, []RevokingShard{{Shard: 1000, State: RevokeRevoking}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stable2(t)
			r := h.send(hbFor("A", 2, tc.owned, tc.revoking...))
			if r.Status != StatusFencedMemberEpoch || h.member("A").State != StateFenced {
				t.Fatalf("got %s", fmtResp(r))
			}
		})
	}
}

func TestRevokedReportOfUngivenShardIsHarmless(t *testing.T) {
	h := stable2(t)
	r := h.send(hbFor("A", 2, []int{0, 1}, RevokingShard{Shard: 3, State: RevokeRevoked}))
	if r.Status != StatusOK {
		t.Fatalf("REVOKED means released, not held: %s", fmtResp(r))
	}
}

func TestFencedMemberKeepsBlockingUntilLeaseExpiry(t *testing.T) {
	h := stable2(t)
	h.send(hbFor("A", 7, []int{0, 1}))
	h.now = h.now.Add(10 * time.Second)
	h.send(hbFor("B", 2, []int{2, 3}))
	h.send(hbFor("B", 3, []int{2, 3}))
	if m := h.member("B"); !slices.Equal(m.Assigned, []int{2, 3}) || !slices.Equal(m.Pending, []int{0, 1}) {
		t.Fatalf("B must wait for fenced A: %+v", m)
	}
	// Rejected heartbeats do not extend the lease.
	r := h.send(hbFor("A", 2, []int{0, 1}))
	if r.Status != StatusFencedMemberEpoch {
		t.Fatalf("got %s", fmtResp(r))
	}
	h.now = t0.Add(testCfg.LeaseTTL)
	h.apply(h.g.Expire("A", h.now))
	if h.member("A").State != StateExpired {
		t.Fatal("fenced A expires with its original lease")
	}
	r = h.send(hbFor("B", 3, []int{2, 3}))
	wantResp(t, r, StatusOK, 3, []int{0, 1, 2, 3}, []int{})
}

func TestUnknownMemberID(t *testing.T) {
	h := newHarness(t, 2)
	d := h.g.Heartbeat(hbFor("nobody", 3, []int{0}), h.now)
	if d.Response.Status != StatusUnknownMemberID || d.Change != nil {
		t.Fatalf("got %s", fmtResp(d.Response))
	}
}

func TestInvalidRequest(t *testing.T) {
	base := func() Heartbeat { return hbFor("A", 2, []int{0, 1}) }
	for _, tc := range []struct {
		name string
		mut  func(*Heartbeat)
		want Status
	}{
		{"protocol 2", func(h *Heartbeat) { h.ProtocolVersion = 2 }, StatusUnsupportedProtocol},
		{"protocol 0", func(h *Heartbeat) { h.ProtocolVersion = 0 }, StatusUnsupportedProtocol},
		{"empty member id", func(h *Heartbeat) { h.MemberID, h.PathMemberID = "", "" }, StatusInvalidRequest},
		{"path differs", func(h *Heartbeat) { h.PathMemberID = "B" }, StatusInvalidRequest},
		{"epoch -2", func(h *Heartbeat) { h.MemberEpoch = -2 }, StatusInvalidRequest},
		{"negative shard", func(h *Heartbeat) { h.Owned = []int{-1} }, StatusInvalidRequest},
		{"duplicate owned", func(h *Heartbeat) { h.Owned = []int{1, 0, 1} }, StatusInvalidRequest},
		{"duplicate revoking", func(h *Heartbeat) {
			h.Revoking = []RevokingShard{{Shard: 3, State: RevokeRevoked}, {Shard: 3, State: RevokeDraining}}
		}, StatusInvalidRequest},
		{"negative revoking", func(h *Heartbeat) { h.Revoking = []RevokingShard{{Shard: -3, State: RevokeRevoked}} }, StatusInvalidRequest},
		{"unknown revoke state", func(h *Heartbeat) { h.Revoking = []RevokingShard{{Shard: 3, State: "DONE"}} }, StatusInvalidRequest},
		{"join with owned", func(h *Heartbeat) { h.MemberEpoch = 0 }, StatusInvalidRequest},
		{"join with revoking", func(h *Heartbeat) {
			h.MemberEpoch, h.Owned = 0, nil
			h.Revoking = []RevokingShard{{Shard: 3, State: RevokeRevoked}}
		}, StatusInvalidRequest},
		{"negative metadata version", func(h *Heartbeat) { h.MetadataVersion = -1 }, StatusInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stable2(t)
			before := snap(h.g)
			hb := base()
			tc.mut(&hb)
			d := h.g.Heartbeat(hb, h.now)
			if d.Response.Status != tc.want || d.Change != nil || d.Response.Message == "" {
				t.Fatalf("got %s change=%v", fmtResp(d.Response), d.Change)
			}
			if !equalSnap(before, snap(h.g)) {
				t.Fatal("rejection changed state")
			}
		})
	}
}

func TestRevokeThenRelease(t *testing.T) {
	for _, tc := range []struct {
		name     string
		owned    []int
		revoking []RevokingShard
		released bool
	}{
		{"absent from owned", []int{0, 1}, nil, true},
		{"reported REVOKED", []int{0, 1}, []RevokingShard{{Shard: 2, State: RevokeRevoked}, {Shard: 3, State: RevokeRevoked}}, true},
		{"still DRAINING", []int{0, 1}, []RevokingShard{{Shard: 2, State: RevokeDraining}, {Shard: 3, State: RevokeDraining}}, false},
		{"still REVOKING", []int{0, 1}, []RevokingShard{{Shard: 2, State: RevokeRevoking}, {Shard: 3, State: RevokeRevoking}}, false},
		{"still owned", []int{0, 1, 2, 3}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 4)
			h.join("A")
			h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
			h.join("B")
			r := h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
			wantResp(t, r, StatusOK, 1, []int{0, 1}, []int{})
			r = h.send(hbFor("A", 1, tc.owned, tc.revoking...))
			_, held := h.g.Holder(2)
			if held == tc.released {
				t.Fatalf("released=%v but holder present=%v", tc.released, held)
			}
			wantEpoch := int64(1)
			if tc.released {
				wantEpoch = 2 // epoch advances once nothing is left to revoke
			}
			wantResp(t, r, StatusOK, wantEpoch, []int{0, 1}, []int{})
		})
	}
}

func TestAssignedNotYetStartedStaysAssigned(t *testing.T) {
	h := stable2(t)
	r := h.send(hbFor("B", 2, nil))
	wantResp(t, r, StatusOK, 2, []int{2, 3}, []int{})
}

func TestRevokedShardComesBackToSameMember(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3})) // A revoking 2,3
	h.send(hbFor("B", -1, nil))              // B leaves: 2,3 are A's target again
	r := h.send(hbFor("A", 1, []int{0, 1}, RevokingShard{Shard: 2, State: RevokeDraining}, RevokingShard{Shard: 3, State: RevokeDraining}))
	// Its own revocation never blocks A: straight back to assigned, epoch advances at once.
	wantResp(t, r, StatusOK, 3, []int{0, 1, 2, 3}, []int{})
	if m := h.member("A"); len(m.Revoking) != 0 {
		t.Fatalf("revoking %v", m.Revoking)
	}
}

func TestGrantAtCurrentEpochWhenShardBecomesFree(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")
	h.send(hbFor("B", 2, nil)) // pending 2,3
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.send(hbFor("A", 1, []int{0, 1, 2}))
	r := h.send(hbFor("B", 2, nil))
	wantResp(t, r, StatusOK, 2, []int{3}, []int{2})
}

func TestLeaseExpiry(t *testing.T) {
	h := stable2(t)
	if c := h.g.Expire("A", h.now.Add(testCfg.LeaseTTL-time.Nanosecond)); c != nil {
		t.Fatal("stale timer must yield nil")
	}
	c := h.g.Expire("A", h.now.Add(testCfg.LeaseTTL))
	if c == nil || !c.Durable {
		t.Fatal("expiry is durable")
	}
	h.apply(c)
	m := h.member("A")
	if m.State != StateExpired || len(m.Assigned)+len(m.Target) != 0 {
		t.Fatalf("member %+v", m)
	}
	if _, ok := h.g.NextDeadline("A"); ok {
		t.Fatal("expired member has no deadline")
	}
	if tg := h.member("B").Target; !slices.Equal(tg, []int{0, 1, 2, 3}) {
		t.Fatalf("B target %v", tg)
	}
}

func TestRebalanceTimeoutFences(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	for i := 1; i <= 6; i++ { // keep the lease alive, never release
		h.now = t0.Add(time.Duration(i) * 10 * time.Second)
		if c := h.g.Expire("A", h.now); c != nil {
			h.apply(c)
			break
		}
		h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	}
	if m := h.member("A"); m.State != StateFenced || h.now != t0.Add(testCfg.RebalanceTimeout) {
		t.Fatalf("A must be fenced at the rebalance timeout: %+v at %s", m, h.now.Sub(t0))
	}
}

func TestNextDeadline(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	if d, ok := h.g.NextDeadline("A"); !ok || d != t0.Add(testCfg.LeaseTTL) {
		t.Fatalf("lease deadline %v %v", d, ok)
	}
	h.join("B")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	cfg := testCfg
	if d, _ := h.g.NextDeadline("A"); d != t0.Add(min(cfg.LeaseTTL, cfg.RebalanceTimeout)) {
		t.Fatalf("deadline %v", d)
	}
	if _, ok := h.g.NextDeadline("nobody"); ok {
		t.Fatal("unknown member has no deadline")
	}
}

func TestPrune(t *testing.T) {
	h := stable2(t)
	h.send(hbFor("A", 9, nil)) // A fenced at t0, lease until t0+15s
	h.now = t0.Add(time.Minute)
	h.send(hbFor("B", 2, []int{2, 3}))
	// A's lease passed but nobody fired Expire; Prune drops it once Retention passed too.
	c := h.g.Prune(h.now)
	if c == nil || !slices.Equal(c.Removed, []string{"A"}) {
		t.Fatalf("prune %v", fmtChange(c))
	}
	h.apply(c)
	if _, held := h.g.Holder(0); held {
		t.Fatal("pruned fenced member frees its shards")
	}
	if h.g.Prune(h.now) != nil {
		t.Fatal("nothing left to prune")
	}
}

func TestPruneKeepsYoungAndBlockingMembers(t *testing.T) {
	h := stable2(t)
	h.send(hbFor("A", 9, nil))
	if c := h.g.Prune(h.now.Add(10 * time.Second)); c != nil {
		t.Fatalf("fenced member with a live lease must stay: %s", fmtChange(c))
	}
}

func TestResize(t *testing.T) {
	h := stable2(t)
	c := h.g.Resize(6, 3)
	h.apply(c)
	mt := h.g.Meta()
	if mt.ShardCount != 6 || mt.MetadataVersion != 3 || mt.GroupEpoch != 3 {
		t.Fatalf("meta %+v", mt)
	}
	h.apply(h.g.Resize(2, 1))
	if h.g.Meta().MetadataVersion != 3 {
		t.Fatal("metadata version never regresses")
	}
	if h.g.Resize(-1, 0) != nil {
		t.Fatal("negative shard count")
	}
}

func TestSteadyHeartbeatIsNotDurable(t *testing.T) {
	h := stable2(t)
	h.now = h.now.Add(time.Second)
	hb := hbFor("A", 2, []int{0, 1})
	hb.Capacity = Capacity{4, 1} // capacity fluctuation alone is not worth a write
	d := h.g.Heartbeat(hb, h.now)
	if d.Change == nil || d.Change.Durable || len(d.Change.Members) != 1 || d.Change.Meta != nil {
		t.Fatalf("change %+v", d.Change)
	}
	h.g.Apply(d.Change)
	if m := h.member("A"); m.LeaseDeadline != h.now.Add(testCfg.LeaseTTL) {
		t.Fatal("lease renewed")
	}
}

func TestCorrectionRound(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")
	hb := hbFor("A", 1, []int{0, 1, 2, 3})
	hb.MetadataVersion = 5
	r := h.send(hb)
	if r.Status != StatusSyncMetadata || r.MetadataVersion != 5 || !h.g.Meta().CorrectionRound {
		t.Fatalf("got %s", fmtResp(r))
	}
	hb = hbFor("B", 2, nil)
	hb.MetadataVersion = 5
	if r = h.send(hb); r.Status != StatusRevokePending {
		t.Fatalf("got %s", fmtResp(r))
	}
	hb.MetadataVersion = 4
	if r = h.send(hb); r.Status != StatusSyncMetadata {
		t.Fatalf("behind during a round: %s", fmtResp(r))
	}
	hb = hbFor("A", 1, []int{0, 1})
	hb.MetadataVersion = 5
	if r = h.send(hb); r.Status != StatusOK || h.g.Meta().CorrectionRound {
		t.Fatalf("round must clear once nobody revokes: %s", fmtResp(r))
	}
	hb = hbFor("B", 2, nil)
	hb.MetadataVersion = 5
	wantResp(t, h.send(hb), StatusOK, 2, []int{2, 3}, []int{})
}

func TestRestoreGivesFreshLeases(t *testing.T) {
	h := stable2(t)
	h.send(hbFor("A", -1, []int{0})) // LEAVING, revoking 0
	later := h.now.Add(time.Hour)
	g, err := Restore(testCfg, h.g.Meta(), h.g.Members(), later)
	if err != nil {
		t.Fatal(err)
	}
	if v := g.CheckInvariants(); len(v) > 0 {
		t.Fatal(v)
	}
	a, _ := g.Member("A")
	b, _ := g.Member("B")
	if a.LeaseDeadline != later.Add(testCfg.LeaseTTL) || a.RevokeDeadline != later.Add(testCfg.RebalanceTimeout) || b.LeaseDeadline != later.Add(testCfg.LeaseTTL) {
		t.Fatalf("fresh deadlines: %+v %+v", a, b)
	}
	if g.Tick(later) != nil {
		t.Fatal("a restart alone never expires or fences")
	}
}

func TestRestoreRejectsCorruptRecords(t *testing.T) {
	good := func() (Meta, []Member) {
		h := stable2(t)
		return h.g.Meta(), h.g.Members()
	}
	for _, tc := range []struct {
		name string
		mut  func(*Meta, []Member)
	}{
		{"assignment epoch ahead", func(m *Meta, _ []Member) { m.AssignmentEpoch = m.GroupEpoch + 1 }},
		{"double holder", func(_ *Meta, ms []Member) { ms[1].Assigned = []int{0, 2, 3} }},
		{"unsorted", func(_ *Meta, ms []Member) { ms[0].Assigned = []int{1, 0} }},
		{"duplicate id", func(_ *Meta, ms []Member) { ms[1].ID = ms[0].ID }},
		{"bad state", func(_ *Meta, ms []Member) { ms[0].State = "ZOMBIE" }},
		{"epoch ahead", func(m *Meta, ms []Member) { ms[0].Epoch = m.AssignmentEpoch + 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ms := good()
			tc.mut(&m, ms)
			if _, err := Restore(testCfg, m, ms, t0); err == nil {
				t.Fatal("want error")
			}
		})
	}
}

func TestHeartbeatNeverMutatesGroup(t *testing.T) {
	h := stable2(t)
	before := snap(h.g)
	for _, hb := range []Heartbeat{hbFor("A", 0, nil), hbFor("A", -1, nil), hbFor("A", 9, nil), hbFor("C", 0, nil), hbFor("B", 2, []int{2})} {
		h.g.Heartbeat(hb, h.now)
		if !equalSnap(before, snap(h.g)) {
			t.Fatalf("evaluation of %+v mutated the group", hb)
		}
	}
}
