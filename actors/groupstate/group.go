package groupstate

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// MaxShardCount bounds the shard count of a group and every shard index a persisted record may
// carry (indexes are slices sized by shard count; a corrupt record must not allocate gigabytes).
const MaxShardCount = 1 << 22

// Group is the in-memory state of one {streamPrefix, consumerGroup}. It is not safe for
// concurrent use; the group actor owns it. Evaluations (Heartbeat, Expire, Tick, Prune,
// Resize) never mutate it; only Apply does.
type Group struct {
	cfg     model.Config
	meta    model.Meta
	members map[string]*model.Member
	// holder[s] is the member that may still be reading shard s ("" = free): the member having
	// s in Assigned ∪ Revoking among members in a holding state (all but EXPIRED).
	holder   shardset.Holders
	live     int // members in the target (STARTING/ACTIVE)
	leaving  int // LEAVING members
	retained int // EXPIRED/FENCED members
	// name is the member name last stored: the members of a group mostly share one (the
	// application's), so their records share its bytes instead of each keeping the copy its
	// join request was decoded into (putCopy).
	name string
	// instances maps the instanceId of every live static member to its id (static.go).
	instances instanceIndex

	// Volatile, never persisted.
	bucket     joinBucket           // Config.JoinRate
	holdUntil  time.Time            // HoldGrantsUntil
	holdWhy    string               // HoldGrantsFor: why the current hold lasts ("" = a store data loss)
	graceUntil time.Time            // the hand-over grace of RestoreHandedOver (handover.go)
	restoredAt time.Time            // when Restore rebuilt the group (volatile): see endHold
	overdue    map[string]time.Time // MarkOverdue: member → the lease deadline it was overdue for (overdue.go)
	// steadyChange is the Change of the last steady heartbeat (steady.go), reused by the next.
	steadyChange *steadyChange
}

// New returns an empty group at groupEpoch 0.
func New(cfg model.Config, streamPrefix, consumerGroup string, shardCount int, metadataVersion int64) *Group {
	if shardCount < 0 {
		shardCount = 0
	}
	return &Group{
		cfg: cfg,
		meta: model.Meta{StreamPrefix: streamPrefix, ConsumerGroup: consumerGroup,
			ShardCount: shardCount, MetadataVersion: metadataVersion},
		members: map[string]*model.Member{},
		holder:  make([]string, shardCount),
	}
}

// Restore rebuilds a group from persisted records. It validates them, rebuilds the indexes
// and gives every non-expired member a fresh lease (now+LeaseTTL) and, if it is revoking, a
// fresh revoke deadline (now+RebalanceTimeout): a restart alone never expires or fences anyone.
// After a graceful release use RestoreHandedOver, which keeps the timers the release handed over.
func Restore(cfg model.Config, meta model.Meta, members []model.Member, now time.Time) (*Group, error) {
	if meta.ShardCount < 0 || meta.GroupEpoch < 0 || meta.AssignmentEpoch < 0 || meta.MetadataVersion < 0 {
		return nil, fmt.Errorf("groupstate: restore: negative field in meta %+v", meta)
	}
	if meta.ShardCount > MaxShardCount {
		return nil, fmt.Errorf("groupstate: restore: shardCount %d exceeds %d", meta.ShardCount, MaxShardCount)
	}
	if !meta.Assignment.Valid() {
		return nil, fmt.Errorf("groupstate: restore: assignment %q is not a mode (uniform, capacity)", meta.Assignment)
	}
	if meta.AssignmentEpoch > meta.GroupEpoch {
		return nil, fmt.Errorf("groupstate: restore: assignmentEpoch %d > groupEpoch %d", meta.AssignmentEpoch, meta.GroupEpoch)
	}
	g := New(cfg, meta.StreamPrefix, meta.ConsumerGroup, meta.ShardCount, meta.MetadataVersion)
	g.meta, g.restoredAt = meta, now
	for i := range members {
		m := deepCopy(members[i])
		if m.ID == "" {
			return nil, fmt.Errorf("groupstate: restore: member #%d has an empty id", i)
		}
		if _, dup := g.members[m.ID]; dup {
			return nil, fmt.Errorf("groupstate: restore: member %q appears twice", m.ID)
		}
		if !m.State.Valid() {
			return nil, fmt.Errorf("groupstate: restore: member %q has unknown state %q", m.ID, m.State)
		}
		for name, s := range map[string][]int{"target": m.Target, "assigned": m.Assigned, "revoking": m.Revoking, "pending": m.Pending} {
			if !shardset.SortedUnique(s) || (len(s) > 0 && s[len(s)-1] >= MaxShardCount) {
				return nil, fmt.Errorf("groupstate: restore: member %q %s %v is not sorted, unique and within [0, %d)", m.ID, name, s, MaxShardCount)
			}
		}
		if len(shardset.Intersect(m.Assigned, m.Revoking)) > 0 {
			return nil, fmt.Errorf("groupstate: restore: member %q has shards both assigned and revoking", m.ID)
		}
		if m.Epoch < 0 || m.PrevEpoch < 0 || m.Epoch > meta.AssignmentEpoch {
			return nil, fmt.Errorf("groupstate: restore: member %q epoch %d (prev %d) out of range (assignmentEpoch %d)", m.ID, m.Epoch, m.PrevEpoch, meta.AssignmentEpoch)
		}
		if m.State == model.StateExpired && len(m.Target)+len(m.Assigned)+len(m.Revoking)+len(m.Pending) > 0 {
			return nil, fmt.Errorf("groupstate: restore: EXPIRED member %q still has shards", m.ID)
		}
		m.LastHeartbeat, m.LeaseDeadline, m.RevokeDeadline = 0, 0, 0
		if !m.State.InTarget() {
			m.SetSessionDeadline(time.Time{})
		}
		if m.State != model.StateExpired {
			m.LeaseDeadline = model.InstantOf(now.Add(cfg.LeaseTTL))
			if m.Away() { // the hold keeps its wall-clock deadline across a restart or a move
				m.LeaseDeadline = model.InstantOf(m.SessionDeadline())
			}
			if len(m.Revoking) > 0 {
				m.RevokeDeadline = model.InstantOf(now.Add(cfg.RebalanceTimeout))
			}
			for _, s := range shardset.Union(m.Assigned, m.Revoking) {
				if s < len(g.holder) && g.holder[s] != "" {
					return nil, fmt.Errorf("groupstate: restore: shard %d held by both %q and %q", s, g.holder[s], m.ID)
				}
			}
		}
		m.Name = g.shareName(m.Name)
		g.put(&m)
	}
	return g, nil
}

// Apply makes a Change (from an evaluation of this group) the current state. Call it only
// after the Change is durable when Change.Durable is set.
func (g *Group) Apply(c *Change) {
	if c == nil {
		return
	}
	if c.Meta != nil {
		g.meta = *c.Meta
		if len(g.holder) < g.meta.ShardCount {
			g.holder.Grow(g.meta.ShardCount)
		}
	}
	for i := range c.Members {
		if old := g.members[c.Members[i].ID]; old != nil && !c.Durable && durableEqual(old, &c.Members[i]) {
			// Only volatile fields moved (a steady heartbeat renewing the lease): update the
			// record in place. Nothing the holder index or the counters read has changed, and
			// the id and name are equal: keep the record's shared strings.
			id, name := old.ID, old.Name
			*old = c.Members[i]
			old.ID, old.Name = id, name
			continue
		}
		g.putCopy(&c.Members[i])
	}
	if c.bucket != nil {
		g.bucket = *c.bucket
	}
	for _, id := range c.Removed {
		if old := g.members[id]; old != nil {
			g.unindex(old)
			delete(g.members, id)
		}
	}
}

// putCopy stores a copy of m: a known member's record is overwritten in place (the Group owns
// it; nothing outside keeps a pointer to it), so a steady heartbeat allocates no new record.
// The record keeps its own id and name strings when they are unchanged: each heartbeat's
// come freshly decoded from its request, and a node keeps one record per member.
func (g *Group) putCopy(m *model.Member) {
	old := g.members[m.ID]
	if old == nil {
		c := *m
		c.Name = g.shareName(c.Name)
		g.members[c.ID] = &c
		g.index(&c)
		return
	}
	g.unindex(old)
	id, name := old.ID, old.Name
	*old = *m
	old.ID = id // equal: the map key
	if old.Name == name {
		old.Name = name
	} else {
		old.Name = g.shareName(old.Name)
	}
	g.index(old)
}

// shareName returns the group's copy of name when it is the name last stored.
func (g *Group) shareName(name string) string {
	if name == g.name {
		return g.name
	}
	g.name = name
	return name
}

func (g *Group) put(m *model.Member) {
	if old := g.members[m.ID]; old != nil {
		g.unindex(old)
	}
	g.members[m.ID] = m
	g.index(m)
}

func (g *Group) index(m *model.Member) {
	if m.State.Holds() {
		for _, s := range m.Assigned {
			g.holder.Set(s, m.ID)
		}
		for _, s := range m.Revoking {
			g.holder.Set(s, m.ID)
		}
	}
	if m.State.InTarget() {
		g.live++
	}
	g.instances.add(m)
	if m.State == model.StateLeaving {
		g.leaving++
	}
	if m.State.Retained() {
		g.retained++
	}
}

func (g *Group) unindex(m *model.Member) {
	if m.State.Holds() {
		for _, s := range m.Assigned {
			g.holder.Clear(s, m.ID)
		}
		for _, s := range m.Revoking {
			g.holder.Clear(s, m.ID)
		}
	}
	if m.State.InTarget() {
		g.live--
	}
	g.instances.remove(m)
	if m.State == model.StateLeaving {
		g.leaving--
	}
	if m.State.Retained() {
		g.retained--
	}
}

// Config returns the group's configuration.
func (g *Group) Config() model.Config { return g.cfg }

// Meta returns the group-level record.
func (g *Group) Meta() model.Meta { return g.meta }

// Member returns a deep copy of one member.
func (g *Group) Member(id string) (model.Member, bool) {
	m, ok := g.members[id]
	if !ok {
		return model.Member{}, false
	}
	return deepCopy(*m), true
}

// Members returns deep copies of all members, sorted by id.
func (g *Group) Members() []model.Member {
	out := make([]model.Member, 0, len(g.members))
	for _, id := range sortedIDs(g) {
		out = append(out, deepCopy(*g.members[id]))
	}
	return out
}

// CountStates adds to counts how many of g's members are in each state (keyed by the
// state's name), copying no record: the group actor reports them after every durable change.
func CountStates(g *Group, counts map[string]int) {
	for _, m := range g.members {
		counts[string(m.State)]++
	}
}

// Holder returns the member that may still be reading the shard.
func (g *Group) Holder(shard int) (memberID string, ok bool) {
	id := g.holder.Of(shard)
	return id, id != ""
}

// HolderEpoch returns the member that may still be reading the shard and the member epoch
// it holds it at.
func (g *Group) HolderEpoch(shard int) (memberID string, epoch int64, ok bool) {
	id := g.holder.Of(shard)
	if id == "" {
		return "", 0, false
	}
	return id, g.members[id].Epoch, true
}

// Known reports whether the group has a record of the member (in any state, EXPIRED included).
func (g *Group) Known(memberID string) bool {
	_, ok := g.members[memberID]
	return ok
}

// Live returns the number of members in the target assignment.
func (g *Group) Live() int { return g.live }

// Occupied returns the number of members in the target assignment or still holding a shard
// (LEAVING members draining, FENCED members not yet expired): while any exists, forgetting
// the group would let a re-created one hand their shards out at once. O(members).
func (g *Group) Occupied() int {
	n := 0
	for _, m := range g.members {
		if m.State.InTarget() || (m.State.Holds() && len(m.Assigned)+len(m.Revoking) > 0) {
			n++
		}
	}
	return n
}

// Target returns the target assignment: member id → shards (copies), for live members.
func (g *Group) Target() map[string][]int {
	out := make(map[string][]int, g.live)
	for id, m := range g.members {
		if m.State.InTarget() {
			out[id] = slices.Clone(m.Target)
		}
	}
	return out
}

func sortedIDs(g *Group) []string {
	ids := make([]string, 0, len(g.members))
	for id := range g.members {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
