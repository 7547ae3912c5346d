package groupstate

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

func TestRevokeThenRelease(t *testing.T) {
	for _, tc := range []struct {
		name     string
		owned    []int
		revoking []model.RevokingShard
		released bool
	}{
		{"absent from owned", []int{0, 1}, nil, true},
		{"reported REVOKED", []int{0, 1}, []model.RevokingShard{{Shard: 2, State: model.RevokeRevoked}, {Shard: 3, State: model.RevokeRevoked}}, true},
		{"still DRAINING", []int{0, 1}, []model.RevokingShard{{Shard: 2, State: model.RevokeDraining}, {Shard: 3, State: model.RevokeDraining}}, false},
		{"still REVOKING", []int{0, 1}, []model.RevokingShard{{Shard: 2, State: model.RevokeRevoking}, {Shard: 3, State: model.RevokeRevoking}}, false},
		{"still owned", []int{0, 1, 2, 3}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 4)
			h.join("A")
			h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
			h.join("B")
			h.send(hbFor("B", 2, nil)) // confirmed: B takes part in the assignment
			r := h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
			wantResp(t, r, model.StatusOK, 1, []int{0, 1}, []int{})
			r = h.send(hbFor("A", 1, tc.owned, tc.revoking...))
			_, held := h.g.Holder(2)
			if held == tc.released {
				t.Fatalf("released=%v but holder present=%v", tc.released, held)
			}
			wantEpoch := int64(1)
			if tc.released {
				wantEpoch = 3 // epoch advances once nothing is left to revoke
			}
			wantResp(t, r, model.StatusOK, wantEpoch, []int{0, 1}, []int{})
		})
	}
}

func TestAssignedNotYetStartedStaysAssigned(t *testing.T) {
	h := stable2(t)
	r := h.send(hbFor("B", 3, nil))
	wantResp(t, r, model.StatusOK, 3, []int{2, 3}, []int{})
}

func TestRevokedShardComesBackToSameMember(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")
	h.send(hbFor("B", 2, nil))               // confirmed
	h.send(hbFor("A", 1, []int{0, 1, 2, 3})) // A revoking 2,3
	h.send(hbFor("B", -1, nil))              // B leaves: 2,3 are A's target again
	r := h.send(hbFor("A", 1, []int{0, 1}, model.RevokingShard{Shard: 2, State: model.RevokeDraining}, model.RevokingShard{Shard: 3, State: model.RevokeDraining}))
	// Its own revocation never blocks A: straight back to assigned, epoch advances at once.
	wantResp(t, r, model.StatusOK, 4, []int{0, 1, 2, 3}, []int{})
	if m := h.member("A"); len(m.Revoking) != 0 {
		t.Fatalf("revoking %v", m.Revoking)
	}
}

func TestGrantAtCurrentEpochWhenShardBecomesFree(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")
	h.send(hbFor("B", 2, nil)) // confirmed: groupEpoch 3, pending 2,3
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.send(hbFor("A", 1, []int{0, 1, 2}))
	r := h.send(hbFor("B", 3, nil))
	wantResp(t, r, model.StatusOK, 3, []int{3}, []int{2})
}

func TestSteadyHeartbeatIsNotDurable(t *testing.T) {
	h := stable2(t)
	h.now = h.now.Add(time.Second)
	hb := hbFor("A", 3, []int{0, 1})
	hb.Capacity = model.Capacity{MaxConcurrency: 4, Available: 1} // capacity fluctuation alone is not worth a write
	d := h.g.Heartbeat(hb, h.now)
	if d.Change == nil || d.Change.Durable || len(d.Change.Members) != 1 || d.Change.Meta != nil {
		t.Fatalf("change %+v", d.Change)
	}
	h.g.Apply(d.Change)
	if m := h.member("A"); !m.LeaseDeadline.Equal(h.now.Add(testCfg.LeaseTTL)) {
		t.Fatal("lease renewed")
	}
}

// A record persisted by a coordinator from before members could no longer start metadata
// correction rounds may still say "correctionRound": true. The field is gone: such a record
// restores, and its members are answered by the ordinary rules (no shard is granted while its
// previous holder still revokes it).
func TestOlderRecordWithACorrectionRoundRestores(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")
	h.send(hbFor("B", h.member("B").Epoch, nil)) // B confirmed
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))     // told to revoke 2,3
	if !slices.Equal(h.member("A").Revoking, []int{2, 3}) {
		t.Fatalf("A revoking: %s", table(h.g))
	}
	var meta model.Meta
	if err := json.Unmarshal([]byte(`{"streamPrefix":"orders","consumerGroup":"workers","groupEpoch":`+
		strconv.FormatInt(h.g.Meta().GroupEpoch, 10)+`,"assignmentEpoch":`+strconv.FormatInt(h.g.Meta().AssignmentEpoch, 10)+
		`,"metadataVersion":5,"shardCount":4,"correctionRound":true}`), &meta); err != nil {
		t.Fatal(err)
	}
	g, err := Restore(testCfg, meta, h.g.Members(), h.now)
	if err != nil {
		t.Fatal(err)
	}
	h.g = g
	eB := h.member("B").Epoch
	hb := hbFor("B", eB, nil)
	hb.MetadataVersion = 5
	if r := h.send(hb); r.Status != model.StatusOK || len(r.Assigned) != 0 || !slices.Equal(r.Pending, []int{2, 3}) {
		t.Fatalf("while A revokes: %s", fmtResp(r))
	}
	hb = hbFor("A", 1, []int{0, 1})
	hb.MetadataVersion = 5
	if r := h.send(hb); r.Status != model.StatusOK {
		t.Fatalf("A released: %s", fmtResp(r))
	}
	hb = hbFor("B", eB, nil)
	hb.MetadataVersion = 5
	if r := h.send(hb); r.Status != model.StatusOK || !slices.Equal(r.Assigned, []int{2, 3}) || r.MetadataVersion != 5 {
		t.Fatalf("got %s", fmtResp(r))
	}
}

// Only the coordinator issues versions and epochs: a member reporting a higher metadataVersion
// is answered SYNC_METADATA with the group's real one and nothing is adopted or stored; an
// epoch ahead of the one issued is fenced and moves no group epoch to it.
func TestMembersCannotInflateVersionsOrEpochs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hb      func(h *harness) model.Heartbeat
		status  model.Status
		changes bool // a durable change is expected (fencing), but never of the versions
	}{
		{"metadataVersion on a heartbeat", func(h *harness) model.Heartbeat {
			hb := hbFor("A", 3, []int{0, 1})
			hb.MetadataVersion = 1e15
			return hb
		}, model.StatusSyncMetadata, false},
		{"metadataVersion on a join", func(h *harness) model.Heartbeat {
			hb := hbFor("C", 0, nil)
			hb.MetadataVersion = 1e15
			return hb
		}, model.StatusSyncMetadata, true},
		{"metadataVersion on a leave", func(h *harness) model.Heartbeat {
			hb := hbFor("A", -1, nil)
			hb.MetadataVersion = 1e15
			return hb
		}, model.StatusOK, true},
		{"memberEpoch ahead", func(h *harness) model.Heartbeat { return hbFor("A", 1e15, []int{0, 1}) }, model.StatusFencedMemberEpoch, true},
		{"memberEpoch ahead on a leave-free heartbeat of an unknown member", func(h *harness) model.Heartbeat { return hbFor("Z", 1e15, nil) }, model.StatusUnknownMemberID, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stable2(t)
			before := h.g.Meta()
			r := h.send(tc.hb(h))
			after := h.g.Meta()
			if r.Status != tc.status {
				t.Fatalf("got %s, want %s", fmtResp(r), tc.status)
			}
			if r.MetadataVersion != before.MetadataVersion || after.MetadataVersion != before.MetadataVersion {
				t.Fatalf("metadataVersion moved: response %d, group %d → %d", r.MetadataVersion, before.MetadataVersion, after.MetadataVersion)
			}
			if after.GroupEpoch > before.GroupEpoch+1 || r.MemberEpoch >= 1e15 || r.GroupEpoch > before.GroupEpoch+1 {
				t.Fatalf("an epoch moved beyond what the coordinator issues: %+v → %+v, response %s", before, after, fmtResp(r))
			}
			for _, m := range h.g.Members() {
				if m.Epoch > after.AssignmentEpoch {
					t.Fatalf("member %s at epoch %d beyond assignment epoch %d", m.ID, m.Epoch, after.AssignmentEpoch)
				}
			}
			if !tc.changes && after != before {
				t.Fatalf("meta changed: %+v → %+v", before, after)
			}
		})
	}
	// The group keeps working: the member adopts the real version and is served as usual.
	h := stable2(t)
	hb := hbFor("A", 3, []int{0, 1})
	hb.MetadataVersion = 1e15
	wantResp(t, h.send(hb), model.StatusSyncMetadata, 3, []int{0, 1}, []int{})
	wantResp(t, h.send(hbFor("A", 3, []int{0, 1})), model.StatusOK, 3, []int{0, 1}, []int{})
}
