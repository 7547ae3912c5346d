package groupstate

import (
	"slices"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Shard fences (docs/PROTOCOL.md "Shard fence"): before a durable change is saved, the shell
// writes the fence of every shard whose holder the change moves, so that a member is never
// told it may read a shard whose fence does not name it, and a member that stopped holding a
// shard (released, expired, left) can no longer acknowledge on it. The holder of a shard is the
// member having it in Assigned ∪ Revoking in any state but EXPIRED (holds; a FENCED member
// keeps holding until its lease runs out). Steady heartbeats move no holder and carry no moves.

// FenceMove is one shard whose holder a durable Change moves: the shell writes the shard's
// fence to name Holder at Epoch, or clears it when Holder is "" (nobody holds the shard after
// the change).
type FenceMove struct {
	Shard  int
	Holder string
	Epoch  int64 // Holder's member epoch after the change
}

// fenceMoves returns one move per shard whose holder differs between g and g with c applied,
// sorted by shard. It looks only at the members c changes or removes, so its cost is that of
// c, not of the group. A shard beyond the shard set (after c) was retired by a scale-in before
// the set shrank: its stream is gone and its fence is deleted by the migration, so its
// holders' releases move nothing there.
func (g *Group) fenceMoves(c *Change) []FenceMove {
	changed := make(map[string]bool, len(c.Members)+len(c.Removed))
	touched := map[int]struct{}{}
	after := map[int]*model.Member{}
	addBefore := func(id string) {
		if m := g.members[id]; m != nil && m.State.Holds() {
			touchAll(touched, m)
		}
	}
	for i := range c.Members {
		m := &c.Members[i]
		changed[m.ID] = true
		addBefore(m.ID)
		if m.State.Holds() {
			touchAll(touched, m)
			for _, s := range m.Assigned {
				after[s] = m
			}
			for _, s := range m.Revoking {
				after[s] = m
			}
		}
	}
	for _, id := range c.Removed { // Apply removes after it puts: a removed member holds nothing
		changed[id] = true
		addBefore(id)
		for s, m := range after {
			if m.ID == id {
				delete(after, s)
			}
		}
	}
	bound := g.meta.ShardCount
	if c.Meta != nil {
		bound = c.Meta.ShardCount
	}
	var moves []FenceMove
	for s := range touched {
		if s >= bound {
			continue
		}
		was := g.holderOf(s)
		var now string
		var epoch int64
		if m := after[s]; m != nil {
			now, epoch = m.ID, m.Epoch
		} else if was != "" && !changed[was] {
			now = was // held by a member c does not touch
		}
		if now != was {
			moves = append(moves, FenceMove{Shard: s, Holder: now, Epoch: epoch})
		}
	}
	slices.SortFunc(moves, func(x, y FenceMove) int { return x.Shard - y.Shard })
	return moves
}

// touchAll adds the shards m holds (Assigned ∪ Revoking) to touched.
func touchAll(touched map[int]struct{}, m *model.Member) {
	for _, s := range m.Assigned {
		touched[s] = struct{}{}
	}
	for _, s := range m.Revoking {
		touched[s] = struct{}{}
	}
}
