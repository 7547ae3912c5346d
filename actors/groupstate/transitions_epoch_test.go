package groupstate

import (
	"slices"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

func TestPreviousEpochAccepted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		owned []int
		want  model.Status
	}{
		{"owned subset of assigned", []int{0, 1}, model.StatusOK},
		{"owned empty", nil, model.StatusOK},
		{"owned beyond assigned", []int{0, 1, 2}, model.StatusFencedMemberEpoch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stable2(t) // A: epoch 3, prev 1, assigned 0,1
			r := h.send(hbFor("A", 1, tc.owned))
			if r.Status != tc.want {
				t.Fatalf("got %s", fmtResp(r))
			}
			if tc.want == model.StatusOK && r.MemberEpoch != 3 {
				t.Fatalf("accepted as current must answer the current epoch: %s", fmtResp(r))
			}
		})
	}
}

func TestStaleOrAheadEpochFenced(t *testing.T) {
	for _, epoch := range []int64{1, 4, 100} {
		h := stable2(t)
		h.send(hbFor("B", 3, []int{2, 3}))
		// B: epoch 3, prev 2 → epoch 1 is stale (not prev), 4 and 100 are ahead.
		before := h.g.Meta().GroupEpoch
		r := h.send(hbFor("B", epoch, []int{2, 3}))
		if r.Status != model.StatusFencedMemberEpoch || h.member("B").State != model.StateFenced {
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
		revoking []model.RevokingShard
	}{
		{"owned shard of another member", []int{0, 1, 2}, nil},
		{"owned shard beyond shardCount", []int{0, 1, 4}, nil},
		{"draining shard never given", []int{0, 1}, []model.RevokingShard{{Shard: 3, State: model.RevokeDraining}}},
		{"revoking shard never given", []int{0}, []model.RevokingShard{{Shard: 1000, State: model.RevokeRevoking}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stable2(t)
			r := h.send(hbFor("A", 3, tc.owned, tc.revoking...))
			if r.Status != model.StatusFencedMemberEpoch || h.member("A").State != model.StateFenced {
				t.Fatalf("got %s", fmtResp(r))
			}
		})
	}
}

func TestRevokedReportOfUngivenShardIsHarmless(t *testing.T) {
	h := stable2(t)
	r := h.send(hbFor("A", 3, []int{0, 1}, model.RevokingShard{Shard: 3, State: model.RevokeRevoked}))
	if r.Status != model.StatusOK {
		t.Fatalf("REVOKED means released, not held: %s", fmtResp(r))
	}
}

func TestFencedMemberKeepsBlockingUntilLeaseExpiry(t *testing.T) {
	h := stable2(t)
	h.send(hbFor("A", 7, []int{0, 1}))
	h.now = h.now.Add(10 * time.Second)
	h.send(hbFor("B", 3, []int{2, 3}))
	h.send(hbFor("B", 4, []int{2, 3}))
	if m := h.member("B"); !slices.Equal(m.Assigned, []int{2, 3}) || !slices.Equal(m.Pending, []int{0, 1}) {
		t.Fatalf("B must wait for fenced A: %+v", m)
	}
	// Rejected heartbeats do not extend the lease.
	r := h.send(hbFor("A", 3, []int{0, 1}))
	if r.Status != model.StatusFencedMemberEpoch {
		t.Fatalf("got %s", fmtResp(r))
	}
	h.now = t0.Add(testCfg.LeaseTTL)
	h.apply(h.g.Expire("A", h.now))
	if h.member("A").State != model.StateExpired {
		t.Fatal("fenced A expires with its original lease")
	}
	r = h.send(hbFor("B", 4, []int{2, 3}))
	wantResp(t, r, model.StatusOK, 4, []int{0, 1, 2, 3}, []int{})
}

func TestUnknownMemberID(t *testing.T) {
	h := newHarness(t, 2)
	d := h.g.Heartbeat(hbFor("nobody", 3, []int{0}), h.now)
	if d.Response.Status != model.StatusUnknownMemberID || d.Change != nil {
		t.Fatalf("got %s", fmtResp(d.Response))
	}
}

func TestInvalidRequest(t *testing.T) {
	base := func() model.Heartbeat { return hbFor("A", 3, []int{0, 1}) }
	for _, tc := range []struct {
		name string
		mut  func(*model.Heartbeat)
		want model.Status
	}{
		{"protocol 2", func(h *model.Heartbeat) { h.ProtocolVersion = 2 }, model.StatusUnsupportedProtocol},
		{"protocol 0", func(h *model.Heartbeat) { h.ProtocolVersion = 0 }, model.StatusUnsupportedProtocol},
		{"empty member id", func(h *model.Heartbeat) { h.MemberID, h.PathMemberID = "", "" }, model.StatusInvalidRequest},
		{"path differs", func(h *model.Heartbeat) { h.PathMemberID = "B" }, model.StatusInvalidRequest},
		{"epoch -2", func(h *model.Heartbeat) { h.MemberEpoch = -2 }, model.StatusInvalidRequest},
		{"negative shard", func(h *model.Heartbeat) { h.Owned = []int{-1} }, model.StatusInvalidRequest},
		{"duplicate owned", func(h *model.Heartbeat) { h.Owned = []int{1, 0, 1} }, model.StatusInvalidRequest},
		{"duplicate revoking", func(h *model.Heartbeat) {
			h.Revoking = []model.RevokingShard{{Shard: 3, State: model.RevokeRevoked}, {Shard: 3, State: model.RevokeDraining}}
		}, model.StatusInvalidRequest},
		{"negative revoking", func(h *model.Heartbeat) { h.Revoking = []model.RevokingShard{{Shard: -3, State: model.RevokeRevoked}} }, model.StatusInvalidRequest},
		{"unknown revoke state", func(h *model.Heartbeat) { h.Revoking = []model.RevokingShard{{Shard: 3, State: "DONE"}} }, model.StatusInvalidRequest},
		{"join with owned", func(h *model.Heartbeat) { h.MemberEpoch = 0 }, model.StatusInvalidRequest},
		{"join with revoking", func(h *model.Heartbeat) {
			h.MemberEpoch, h.Owned = 0, nil
			h.Revoking = []model.RevokingShard{{Shard: 3, State: model.RevokeRevoked}}
		}, model.StatusInvalidRequest},
		{"negative metadata version", func(h *model.Heartbeat) { h.MetadataVersion = -1 }, model.StatusInvalidRequest},
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

func TestHeartbeatNeverMutatesGroup(t *testing.T) {
	h := stable2(t)
	before := snap(h.g)
	for _, hb := range []model.Heartbeat{hbFor("A", 0, nil), hbFor("A", -1, nil), hbFor("A", 9, nil), hbFor("C", 0, nil), hbFor("B", 2, []int{2})} {
		h.g.Heartbeat(hb, h.now)
		if !equalSnap(before, snap(h.g)) {
			t.Fatalf("evaluation of %+v mutated the group", hb)
		}
	}
}
