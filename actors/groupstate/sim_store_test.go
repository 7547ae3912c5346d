package groupstate

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// simStore is what the shell would have in Redis: only Durable changes reach it, as JSON.
// A coordinator failover restores the group from it; if a non-durable Change ever carried
// durable information, the restored group would differ and the simulation fails.
type simStore struct {
	meta    []byte
	members map[string][]byte
	history []storeSnap // older durable states, for a rollback (oldest first, bounded)
}

type storeSnap struct {
	meta    []byte
	members map[string][]byte
}

func newSimStore(g *Group) *simStore {
	st := &simStore{members: map[string][]byte{}}
	st.meta, _ = json.Marshal(g.Meta())
	return st
}

func (st *simStore) persist(c *Change) {
	if c == nil || !c.Durable {
		return
	}
	st.history = append(st.history, storeSnap{meta: st.meta, members: maps.Clone(st.members)})
	if len(st.history) > 64 {
		st.history = st.history[1:]
	}
	if c.Meta != nil {
		st.meta, _ = json.Marshal(c.Meta)
	}
	for _, m := range c.Members {
		st.members[m.ID], _ = json.Marshal(m)
	}
	for _, id := range c.Removed {
		delete(st.members, id)
	}
}

// restoreFromStore rebuilds a group from what the store holds, as an activation would: with
// the timers a graceful release handed over (handed non-nil), else with fresh leases.
func (s *sim) restoreFromStore(handed map[string]Lease, releasedAt time.Time) *Group {
	var meta model.Meta
	if err := json.Unmarshal(s.store.meta, &meta); err != nil {
		s.fail("store meta: %v", err)
	}
	var members []model.Member
	ids := make([]string, 0, len(s.store.members))
	for id := range s.store.members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		var m model.Member
		if err := json.Unmarshal(s.store.members[id], &m); err != nil {
			s.fail("store member %s: %v", id, err)
		}
		members = append(members, m)
	}
	restore := Restore
	if handed != nil {
		restore = func(cfg model.Config, meta model.Meta, members []model.Member, now time.Time) (*Group, error) {
			return RestoreHandedOver(cfg, meta, members, handed, releasedAt, now)
		}
	}
	g, err := restore(s.g.Config(), meta, members, s.now)
	if err != nil {
		s.fail("restore: %v", err)
	}
	return g
}

// failover restores a fresh group from the store and checks it matches the live one on every
// durable field. A grant hold (store loss) is carried over, as the shell must. It is a crash
// move: the new activation gives fresh leases.
func (s *sim) failover() {
	s.crashed()
	s.restoreChecked(nil, s.now)
	s.log("failover: restored %d members", len(s.g.Members()))
	simStats["failover"]++
}

// restoreChecked replaces the group by one restored from the store (see restoreFromStore)
// after checking that it matches the live one on every durable field.
func (s *sim) restoreChecked(handed map[string]Lease, releasedAt time.Time) {
	g := s.restoreFromStore(handed, releasedAt)
	g.HoldGrantsUntil(s.g.GrantsHeldUntil())
	if g.Meta() != s.g.Meta() {
		s.fail("restored meta %+v differs from live %+v", g.Meta(), s.g.Meta())
	}
	live, restored := s.g.Members(), g.Members()
	if len(live) != len(restored) {
		s.fail("restored %d members, live group has %d", len(restored), len(live))
	}
	for i := range live {
		// Compare every persisted (JSON) field except Capacity, which is deliberately written
		// only along with other changes.
		a, b := live[i], restored[i]
		a.Capacity, b.Capacity = model.Capacity{}, model.Capacity{}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			s.fail("member %s lost durable state:\n live     %s\n restored %s", a.ID, ja, jb)
		}
	}
	s.g = g
	s.check()
}

// storeLoss: the store loses its state (FLUSHALL, restart without persistence: the stream is
// re-created at once) or rolls back to an older durable state (failover to a lagging replica).
// The coordinator restores from what is there and holds grants for one lease; members keep
// reading what they were told until their self-fence deadline. check() keeps asserting that no
// shard is read by two members; the coordinator-holder check is skipped for what members held
// from before the loss (the restored state may not know it).
func (s *sim) storeLoss() {
	kind := "flush"
	if len(s.store.history) > 0 && s.rng.Intn(2) == 0 {
		snap := s.store.history[s.rng.Intn(len(s.store.history))]
		s.store.meta, s.store.members = snap.meta, maps.Clone(snap.members)
		kind = "rollback"
	} else {
		fresh := New(s.g.Config(), "s", "g", s.shards, 0)
		s.store.meta, _ = json.Marshal(fresh.Meta())
		s.store.members = map[string][]byte{}
	}
	s.store.history = nil
	g := s.restoreFromStore(nil, s.now)
	s.resetLeaseTracks() // the store lost what the bound was counted from
	g.HoldGrantsUntil(s.now.Add(g.Config().LeaseTTL))
	s.g = g
	s.log("store loss (%s): restored %d members, grants held until +%s", kind, len(g.Members()), g.GrantsHeldUntil().Sub(t0))
	simStats["store-loss-"+kind]++
	// Epochs may go back with the state: restart the continuity oracles from here.
	s.lastMeta, s.epochOf, s.target = g.Meta(), map[string]int64{}, participants(g)
	for _, m := range s.members {
		m.maxEpoch = 0
		for sh := range m.reading {
			m.orphan[sh] = true
		}
		for sh := range m.draining {
			m.orphan[sh] = true
		}
	}
	s.check()
}
