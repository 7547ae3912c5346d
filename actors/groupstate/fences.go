package groupstate

import "github.com/redisstream/coordinator/actors/groupstate/fence"

// FenceMove is one shard whose holder a durable Change moves (groupstate/fence: the rules).
type FenceMove = fence.Move

// fenceMoves returns one move per shard whose holder differs between g and g with c applied,
// sorted by shard, at the cost of c, not of the group (fence.Moves).
func fenceMoves(g *Group, c *Change) []FenceMove {
	bound := g.meta.ShardCount
	if c.Meta != nil {
		bound = c.Meta.ShardCount
	}
	return fence.Moves(g.members, g.holder, bound, c.Members, c.Removed)
}
