package groupstate

import (
	"slices"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// txn is the scratch overlay of one evaluation: it reads the Group, records new member
// versions and meta, and turns them into a Change. It never writes to the Group.
type txn struct {
	g         *Group
	now       time.Time
	meta      model.Meta
	metaDirty bool
	changed   []*model.Member // new versions, owned by the txn
	index     map[string]int  // id → position in changed, built once changed grows
	removed   []string
	trimmed   int         // members removed by limits.retained-members-per-group (MaxRetained)
	bucket    *joinBucket // join token bucket to install (nil = unchanged)
}

func newTxn(g *Group, now time.Time) *txn {
	return &txn{g: g, now: now, meta: g.meta}
}

func (t *txn) pos(id string) int {
	if t.index != nil {
		if i, ok := t.index[id]; ok {
			return i
		}
		return -1
	}
	for i, m := range t.changed {
		if m.ID == id {
			return i
		}
	}
	return -1
}

// get returns the current version of a member within the txn (read-only), nil if absent.
func (t *txn) get(id string) *model.Member {
	if i := t.pos(id); i >= 0 {
		return t.changed[i]
	}
	if slices.Contains(t.removed, id) {
		return nil
	}
	return t.g.members[id]
}

// mutable returns the txn's own copy of a member, creating it from the group's version.
func (t *txn) mutable(id string) *model.Member {
	if i := t.pos(id); i >= 0 {
		return t.changed[i]
	}
	c := *t.g.members[id]
	t.add(&c)
	return &c
}

// add records a brand-new member version.
func (t *txn) add(m *model.Member) {
	t.changed = append(t.changed, m)
	if t.index != nil {
		t.index[m.ID] = len(t.changed) - 1
	} else if len(t.changed) > 8 {
		t.index = make(map[string]int, 2*len(t.changed))
		for i, c := range t.changed {
			t.index[c.ID] = i
		}
	}
}

func (t *txn) remove(id string) {
	if i := t.pos(id); i >= 0 {
		t.changed = slices.Delete(t.changed, i, i+1)
		if t.index != nil {
			t.index = nil
			if len(t.changed) > 8 {
				t.index = make(map[string]int, 2*len(t.changed))
				for j, c := range t.changed {
					t.index[c.ID] = j
				}
			}
		}
	}
	if _, ok := t.g.members[id]; ok {
		t.removed = append(t.removed, id)
	}
}

func (t *txn) bumpGroupEpoch() {
	t.meta.GroupEpoch++
	t.metaDirty = true
}

// liveIDs returns the sorted ids of members in the target, as of the txn.
func (t *txn) liveIDs() []string {
	ids := make([]string, 0, t.g.live+len(t.changed))
	for id, m := range t.g.members {
		if t.pos(id) >= 0 {
			continue
		}
		if m.State.InTarget() && !slices.Contains(t.removed, id) {
			ids = append(ids, id)
		}
	}
	for _, m := range t.changed {
		if m.State.InTarget() {
			ids = append(ids, m.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// recompute rebuilds the target assignment when groupEpoch > assignmentEpoch. Only members
// whose target changed are copied into the txn; their Pending follows their new Target.
//
// Admission: the assignment is computed over the confirmed (ACTIVE) live members only; a
// STARTING member (joined, no heartbeat at its epoch since) gets an empty target while any
// member is confirmed, so a member that has not proven it is alive never makes the coordinator
// revoke a shard from one that has (a flood of phantom joins costs the real members nothing).
// Its confirming heartbeat moves the groupEpoch (heartbeatAt) and it gets its share then. With
// no confirmed member at all (a group starting up), every live member takes part.
func (t *txn) recompute() {
	if t.meta.GroupEpoch <= t.meta.AssignmentEpoch {
		return
	}
	all := t.liveIDs()
	ids := make([]string, 0, len(all))
	for _, id := range all {
		if t.get(id).State == model.StateActive {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		ids = all
	} else if len(ids) < len(all) {
		for _, id := range all {
			if m := t.get(id); m.State != model.StateActive && len(m.Target) > 0 {
				c := t.mutable(id)
				c.Target = nil
				c.Pending = nil
			}
		}
	}
	cur := make([]*model.Member, len(ids))
	prevOf := make([][]int, len(ids))
	for i, id := range ids {
		cur[i] = t.get(id)
		prevOf[i] = keepOrder(cur[i])
	}
	next := capacityTargets(&t.meta, cur, prevOf)
	for i, id := range ids {
		nt := next[i]
		if len(nt) == 0 {
			nt = nil
		}
		if slices.Equal(nt, cur[i].Target) {
			continue
		}
		// Its own exact-size copy: the assignor lays every member's shards out in one
		// shared array, which would otherwise stay alive for as long as any member still
		// points into it (one array per recompute: hundreds of bytes per member).
		nt = slices.Clip(slices.Clone(nt))
		c := t.mutable(id)
		c.Target = nt
		c.Pending = shardset.Diff(nt, c.Assigned)
	}
	t.meta.AssignmentEpoch = t.meta.GroupEpoch
	t.metaDirty = true
}

// keepOrder lists m's previous target with the shards it has already been given first, so that
// when the assignor must take shards away it takes those not yet handed over (fewer real moves).
// A member without a target (it was not confirmed yet) is sticky to what it holds.
func keepOrder(m *model.Member) []int {
	if len(m.Target) == 0 {
		return m.Assigned
	}
	if len(m.Pending) == 0 || len(m.Pending) == len(m.Target) {
		return m.Target
	}
	given := shardset.Diff(m.Target, m.Pending)
	out := make([]int, 0, len(m.Target))
	out = append(out, given...)
	return append(out, m.Pending...)
}

// change turns the txn into a Change (nil when nothing changed at all).
func (t *txn) change() *Change {
	if !t.metaDirty && len(t.changed) == 0 && len(t.removed) == 0 {
		return nil
	}
	t.trimRetained()
	c := &Change{Removed: t.removed, Trimmed: t.trimmed, Durable: t.metaDirty || len(t.removed) > 0, bucket: t.bucket}
	if t.metaDirty {
		m := t.meta
		c.Meta = &m
	}
	c.Members = make([]model.Member, len(t.changed))
	for i, m := range t.changed {
		c.Members[i] = *m
		if !c.Durable {
			if old := t.g.members[m.ID]; old == nil || !durableEqual(old, m) {
				c.Durable = true
			}
		}
	}
	if len(c.Members) > 1 {
		slices.SortFunc(c.Members, func(a, b model.Member) int {
			if a.ID < b.ID {
				return -1
			}
			if a.ID > b.ID {
				return 1
			}
			return 0
		})
	}
	if c.Durable {
		if moves := fenceMoves(t.g, c); len(moves) > 0 {
			c.moves = &moves
		}
	}
	return c
}

// respond builds a response for member c (the txn's version) with the txn's meta.
func (t *txn) respond(status model.Status, c *model.Member, msg string) model.Response {
	return model.Response{
		Status: status, MemberID: c.ID, MemberEpoch: c.Epoch,
		GroupEpoch: t.meta.GroupEpoch, AssignmentEpoch: t.meta.AssignmentEpoch,
		MetadataVersion: t.meta.MetadataVersion,
		Assigned:        shardset.RespSlice(c.Assigned), Pending: shardset.RespSlice(c.Pending), Message: msg,
		HeartbeatInterval: intervalFor(t.g.cfg, status, c, othersOverdue(t.g, c.ID)),
	}
}

// fence takes a member out of the target; its Assigned/Revoking stay held (blocking others)
// until its lease expires or it rejoins owning nothing. The lease is not touched.
func (t *txn) fence(id string) {
	c := t.mutable(id)
	if c.State.InTarget() {
		t.bumpGroupEpoch()
	}
	endHold(c, t.now, t.g.restoredAt, t.g.cfg.LeaseTTL)
	c.State, c.StateSince = model.StateFenced, t.now
	c.Target, c.Pending = nil, nil
	c.RevokeDeadline, c.Session = 0, nil
}

// expire drops everything a member held and takes it out of the target.
func (t *txn) expire(id string) {
	c := t.mutable(id)
	if c.State.InTarget() {
		t.bumpGroupEpoch()
	}
	c.State, c.StateSince = model.StateExpired, t.now
	c.Target, c.Assigned, c.Revoking, c.Pending = nil, nil, nil, nil
	c.RevokeDeadline, c.Session = 0, nil
}

// touch renews the lease of an accepted heartbeat.
func (t *txn) touch(c *model.Member) {
	c.LastHeartbeat = model.InstantOf(t.now)
	c.LeaseDeadline = model.InstantOf(t.now.Add(t.g.cfg.LeaseTTL))
}
