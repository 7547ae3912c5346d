package groupstate

import (
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// FuzzHeartbeat decodes arbitrary bytes into a sequence of heartbeats (reporting capacities
// 0..4), timer firings, prunes, resizes, assignment-mode switches and grant holds against a small group (with the limits on for even shard counts), and checks: no panic, the evaluation never mutates the
// group, rejected requests carry no Change, and the invariants hold after every Apply.
func FuzzHeartbeat(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 1, 0, 0, 0, 0})
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x02\x01\x0f\x00\x00"))
	f.Add([]byte("join-leave-fence-expire-resize\xff\xfe\x80\x10"))
	f.Fuzz(runFuzzOnce)
}

func runFuzzOnce(t *testing.T, data []byte) {
	{
		r := &byteReader{data: data}
		shards := 1 + int(r.next()%8)
		cfg := testCfg
		cfg.StaticSessionTimeout = 20 * time.Second
		if shards%2 == 0 { // the limits on half the inputs
			cfg.MaxMembers, cfg.MaxRetained, cfg.JoinRate, cfg.JoinBurst = 2, 1, 0.5, 1
		}
		g := New(cfg, "s", "g", shards, 0)
		now := t0
		ids := []string{"a", "b", "c", "d"}
		for steps := 0; r.more() && steps < 200; steps++ {
			op := r.next() % 10
			var c *Change
			switch {
			case op < 7:
				hb := fuzzHeartbeat(r, g, ids)
				before := snap(g)
				d := g.Heartbeat(hb, now)
				if !equalSnap(before, snap(g)) {
					t.Fatalf("Heartbeat mutated the group")
				}
				checkSteadyAgrees(t, g, hb, now, d)
				switch d.Response.Status {
				case model.StatusInvalidRequest, model.StatusUnsupportedProtocol, model.StatusUnknownMemberID, model.StatusRetry, model.StatusMemberIDInUse, model.StatusOwnedByAnotherPrincipal, model.StatusUnreleasedInstanceID:
					if d.Change != nil {
						t.Fatalf("rejected request with a change: %s", fmtResp(d.Response))
					}
				case model.StatusOK:
					if d.Response.Assigned == nil || d.Response.Pending == nil {
						t.Fatal("nil slices in OK response")
					}
				}
				if d.Response.IDInUse && d.Change != nil {
					t.Fatalf("identity refusal with a change: %s", fmtResp(d.Response))
				}
				c = d.Change
			case op == 7:
				now = now.Add(time.Duration(r.next()) * time.Second)
				if r.next()%2 == 0 {
					c = g.Tick(now)
				} else {
					c = g.Expire(ids[int(r.next())%len(ids)], now)
				}
			case op == 8:
				now = now.Add(time.Duration(r.next()) * time.Second)
				c = g.Prune(now)
			default:
				if b := r.next(); b%4 == 0 {
					g.HoldGrantsUntil(now.Add(time.Duration(b) * time.Second)) // store loss
				} else if b%4 == 1 {
					c = fuzzAssignment(t, g, b, now) // capacity-weighted or uniform (capacity.go)
				} else {
					c = g.Resize(int(b%10), int64(r.next()%4))
				}
			}
			before := g.Meta().AssignmentEpoch
			applyChecked(t, g, c)
			if v := g.CheckInvariants(); len(v) > 0 {
				t.Fatalf("step %d: invariants:\n  %s\n%s", steps, strings.Join(v, "\n  "), table(g))
			}
			if g.Meta().AssignmentEpoch != before {
				checkShares(t, g)
			}
		}
	}
}

type byteReader struct {
	data []byte
	i    int
}

func (r *byteReader) more() bool { return r.i < len(r.data) }

func (r *byteReader) next() byte {
	if r.i >= len(r.data) {
		return 0
	}
	b := r.data[r.i]
	r.i++
	return b
}

func fuzzHeartbeat(r *byteReader, g *Group, ids []string) model.Heartbeat {
	id := ids[int(r.next())%len(ids)]
	hb := model.Heartbeat{ProtocolVersion: 1, RequestID: "f", MemberID: id, PathMemberID: id, Capacity: model.Capacity{MaxConcurrency: 1, Available: 1}}
	m, known := g.Member(id)
	switch e := r.next() % 9; {
	case e == 0:
		hb.MemberEpoch = 0
	case e == 1:
		hb.MemberEpoch = -1
	case e == 8:
		hb.MemberEpoch = -2 // temporary leave of a static member
	case e < 5 && known:
		hb.MemberEpoch = m.Epoch
	case e == 5 && known:
		hb.MemberEpoch = m.PrevEpoch
	default:
		hb.MemberEpoch = int64(int8(r.next()))
	}
	flags := r.next()
	if flags&1 != 0 {
		hb.ProtocolVersion = int(r.next() % 3)
	}
	if flags&2 != 0 {
		hb.PathMemberID = "x"
	}
	if flags&4 != 0 {
		hb.MetadataVersion = int64(r.next() % 4)
	}
	// Ownership: a bitmask over shards 0..7, optionally the member's real holdings, plus odd values.
	if flags&8 != 0 && known {
		hb.Owned = append(hb.Owned, m.Assigned...)
	} else {
		mask := r.next()
		for s := 0; s < 8; s++ {
			if mask&(1<<s) != 0 {
				hb.Owned = append(hb.Owned, s)
			}
		}
	}
	if flags&16 != 0 {
		hb.Owned = append(hb.Owned, int(int8(r.next())))
	}
	if flags&32 != 0 && known {
		states := []model.RevokeState{model.RevokeRevoking, model.RevokeDraining, model.RevokeRevoked, "BOGUS"}
		for _, s := range m.Revoking {
			hb.Revoking = append(hb.Revoking, model.RevokingShard{Shard: s, State: states[int(r.next())%4]})
		}
	}
	if flags&64 != 0 {
		hb.Revoking = append(hb.Revoking, model.RevokingShard{Shard: int(int8(r.next())), State: model.RevokeRevoked})
	}
	if flags&128 != 0 { // identity: another process or another principal on the same id
		hb.Incarnation = [...]string{"", "i1", "i2"}[r.next()%3]
		hb.Principal = [...]string{"", "p1", "p2"}[r.next()%3]
	}
	// Static membership: two instances shared by four member ids (hand-backs, second claims),
	// or the instance the member joined with.
	switch b := r.next() % 4; {
	case b == 1 && known:
		hb.InstanceID = m.InstanceID
	case b >= 2:
		hb.InstanceID = [...]string{"s1", "s2"}[b-2]
	}
	hb.Capacity = model.Capacity{MaxConcurrency: int(r.next() % 5), Available: 1}
	return hb
}
