package groupstate

import (
	"slices"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// Shard fences (docs/PROTOCOL.md "Shard fence"): before a durable change is saved, the shell
// writes the fence of every shard whose holder the change moves, so that a member is never
// told it may read a shard whose fence does not name it, and a member that stopped holding a
// shard (released, expired, left) can no longer acknowledge on it. The holder of a shard is the
// member having it in Assigned ∪ Revoking in any state but EXPIRED (holds; a FENCED member
// keeps holding until its lease runs out). Steady heartbeats move no holder and carry no moves.

// FenceMove is one shard whose holder a durable Change moves: the shell writes the shard's fence
// to name Holder at Epoch, or clears it when Holder is "" (nobody holds the shard after the
// change).
type FenceMove struct {
	Shard  int
	Holder string
	Epoch  int64 // Holder's member epoch after the change
}

// fenceMoves returns one move per shard whose holder differs between g and g with c applied,
// sorted by shard, at the cost of c, not of the group (fenceMovesOf).
func fenceMoves(g *Group, c *Change) []FenceMove {
	bound := g.meta.ShardCount
	if c.Meta != nil {
		bound = c.Meta.ShardCount
	}
	return fenceMovesOf(g.members, g.holder, bound, c.Members, c.Removed)
}

// fenceMovesOf returns one move per shard whose holder differs between the group before a change
// (members, holder) and after it (the change puts changed, then removes removed; bound is the
// shard count after it), sorted by shard. It looks only at the members the change puts or
// removes, so its cost is that of the change, not of the group. A shard at or beyond bound was
// retired by a scale-in before the set shrank: its stream is gone and its fence is deleted by
// the migration, so its holders' releases move nothing there.
func fenceMovesOf(members map[string]*model.Member, holder shardset.Holders, bound int, changed []model.Member, removed []string) []FenceMove {
	touchedBy := make(map[string]bool, len(changed)+len(removed))
	touched := map[int]struct{}{}
	after := map[int]*model.Member{}
	addBefore := func(id string) {
		if m := members[id]; m != nil && m.State.Holds() {
			touchAll(touched, m)
		}
	}
	for i := range changed {
		m := &changed[i]
		touchedBy[m.ID] = true
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
	for _, id := range removed { // Apply removes after it puts: a removed member holds nothing
		touchedBy[id] = true
		addBefore(id)
		for s, m := range after {
			if m.ID == id {
				delete(after, s)
			}
		}
	}
	var moves []FenceMove
	for s := range touched {
		if s >= bound {
			continue
		}
		was := holder.Of(s)
		var now string
		var epoch int64
		if m := after[s]; m != nil {
			now, epoch = m.ID, m.Epoch
		} else if was != "" && !touchedBy[was] {
			now = was // held by a member the change does not touch
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
