package groupstate

import (
	"testing"
	"time"
)

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
