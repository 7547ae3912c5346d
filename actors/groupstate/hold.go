package groupstate

import (
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// HoldGrantsUntil stops new grants until t: no shard is moved into a member's assigned set
// unless the member already holds it per the state, and a member is told (assignedShards) only
// the shards it reports reading; everything else its target gives it is shown as pending.
// Targets are still computed, revocations and releases still happen.
//
// The shell calls it when it finds the store lost data (FLUSHALL, a restart without
// persistence, a failover to a lagging replica), with t = detection + lease TTL: a member told
// OK before the loss may still hold a shard the restored state does not know about (or thinks
// is another's), and it self-fences by its last OK + lease TTL. Until then nobody else may be
// granted that shard, and a member whose restored record lists a shard it no longer reads
// must not be told to start it.
//
// Volatile: not persisted, not carried by Restore. A later t extends the hold, an earlier one
// is ignored. A coordinator taking over the group during the hold must hold it again.
func (g *Group) HoldGrantsUntil(t time.Time) { g.HoldGrantsFor(t, "") }

// HoldGrantsFor is HoldGrantsUntil with the reason members are told while their shards are
// pending because of it ("" = a store data loss: "state lost, waiting out leases"). The reason
// of the hold that ends last is kept.
func (g *Group) HoldGrantsFor(t time.Time, why string) {
	if t.After(g.holdUntil) {
		g.holdUntil, g.holdWhy = t, why
	}
}

// GrantsHeldUntil returns the end of the current grant hold (zero if none was set); grants are
// held while now is before it. For monitoring: "state lost, waiting out leases".
func (g *Group) GrantsHeldUntil() time.Time { return g.holdUntil }

// holding reports whether grants are held at now.
func (g *Group) holding(now time.Time) bool { return now.Before(g.holdUntil) }

// heldResponse narrows a response during a grant hold to what the member reports reading.
func (g *Group) heldResponse(resp *model.Response, c *model.Member, held []int) {
	told := shardset.Intersect(c.Assigned, held)
	resp.Assigned = shardset.RespSlice(told)
	resp.Pending = shardset.RespSlice(shardset.Diff(c.Target, told))
	if resp.Message == "" && len(resp.Pending) > 0 && g.holdWhy != "" {
		resp.Message = g.holdWhy + "; the coordinator grants no new shard until " + g.holdUntil.UTC().Format(time.RFC3339Nano) +
			"; keep reading your assignedShards"
	} else if resp.Message == "" && len(resp.Pending) > 0 {
		resp.Message = fmt.Sprintf(
			"state lost, waiting out leases: the coordinator grants no new shard until %s (members that may still hold one from before the loss stop by then); keep reading your assignedShards",
			g.holdUntil.UTC().Format(time.RFC3339))
	}
}
