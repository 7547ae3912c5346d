package groupstate

import (
	"slices"
	"testing"
)

// applyChecked applies c to g and checks c.FenceMoves() against the holders before and after,
// computed over every shard (not from the members c touches, as fenceMoves does): a shard
// within the shard set moves exactly when its holder changed, to the new holder at its
// epoch; a change that is not durable moves nothing.
func applyChecked(tb testing.TB, g *Group, c *Change) {
	tb.Helper()
	before := holders(g)
	g.Apply(c)
	if c == nil {
		return
	}
	if !c.Durable && c.FenceMoves() != nil {
		tb.Fatalf("a volatile change moves fences: %v", c.FenceMoves())
	}
	after := holders(g)
	var want []FenceMove
	for s := 0; s < g.Meta().ShardCount; s++ {
		was, now := before[s], after[s]
		if was.id != now.id {
			want = append(want, FenceMove{Shard: s, Holder: now.id, Epoch: now.epoch})
		}
	}
	if !slices.Equal(want, c.FenceMoves()) {
		tb.Fatalf("fence moves %v, holders moved %v", c.FenceMoves(), want)
	}
}

type holding struct {
	id    string
	epoch int64
}

func holders(g *Group) map[int]holding {
	out := map[int]holding{}
	for s := 0; s < len(g.holder); s++ {
		if id, epoch, ok := g.HolderEpoch(s); ok {
			out[s] = holding{id, epoch}
		}
	}
	return out
}
