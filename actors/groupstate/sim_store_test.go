package groupstate

import (
	"encoding/json"

	"slices"
)

// simStore is what the shell would have in Redis: only Durable changes reach it, as JSON.
// A coordinator failover restores the group from it; if a non-durable Change ever carried
// durable information, the restored group would differ and the simulation fails.
type simStore struct {
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

// failover restores a fresh group from the store and checks it matches the live one on every
// durable field.
func (s *sim) failover() {
	var meta Meta
	if err := json.Unmarshal(s.store.meta, &meta); err != nil {
		s.fail("store meta: %v", err)
	}
	var members []Member
	ids := make([]string, 0, len(s.store.members))
	for id := range s.store.members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		var m Member
		if err := json.Unmarshal(s.store.members[id], &m); err != nil {
			s.fail("store member %s: %v", id, err)
		}
		members = append(members, m)
	}
	g, err := Restore(s.g.Config(), meta, members, s.now)
	if err != nil {
		s.fail("restore: %v", err)
	}
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
		a.Capacity, b.Capacity = Capacity{}, Capacity{}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			s.fail("member %s lost durable state:\n live     %s\n restored %s", a.ID, ja, jb)
		}
	}
	s.log("failover: restored %d members", len(restored))
	simStats["failover"]++
	s.g = g
	s.check()
}
