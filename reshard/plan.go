package reshard

import (
	"fmt"
	"slices"
	"time"
)

// Step kinds.
const (
	// KindProvision creates Shards' streams, every group's consumer group on
	// them (reading from 0) and their fences, before routing points at them.
	KindProvision = "provision"
	// KindSwitch sets the routing count to Routing and the consuming count to
	// Consume, and bumps the stream's metadataVersion (one compare-and-set of
	// the stream record; no other side effect).
	KindSwitch = "switch"
	// KindResize tells every group of the stream its shard set (the
	// consuming count at the current metadataVersion) and waits until each
	// one has stored it.
	KindResize = "resize"
	// KindGrace waits until producers can no longer route with an older
	// layout: the stream's last routing change (Layout.LastRoutingChange)
	// plus grace. It comes before every retire step and nowhere else: a
	// scale-out removes nothing (producers with the older routing write to
	// shards that still exist), so it never waits the grace.
	KindGrace = "grace"
	// KindRetire retires Shards: each one only when every consumer group on
	// it has nothing pending and nothing undelivered, checked atomically with
	// the rename.
	KindRetire = "retire"
	// KindFences deletes Shards' fences of every group.
	KindFences = "fences"
	// KindFinish ends the migration in State.
	KindFinish = "finish"
)

// Step is one step of a migration's plan.
type Step struct {
	Kind    string `json:"kind"`
	Shards  []int  `json:"shards,omitempty"`
	Routing int    `json:"routing,omitempty"`
	Consume int    `json:"consume,omitempty"`
	// State is the migration's public state while this step is current (for
	// KindFinish: the terminal state).
	State string `json:"state"`
}

// Record is the part of a stream record the rules read and change.
type Record struct {
	Routing         int
	MetadataVersion int64
	Layout          Layout
	// Keep bounds the finished migrations kept in the history (≥ 1).
	Keep int
}

func span(from, to int) []int {
	out := make([]int, 0, max(to-from, 0))
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// Start begins a migration of the stream to target shards. ErrActive if one
// is in progress; ErrSameCount if target equals the routing count. The
// caller validated 0 ≤ target ≤ its maximum.
func (r *Record) Start(target int, by, reason, node string, now time.Time) (*Migration, error) {
	l := &r.Layout
	if l.Active != nil && !l.Active.Finished() {
		return nil, fmt.Errorf("%w: %s (%d → %d) is %s", ErrActive, l.Active.ID, l.Active.From, l.Active.To, l.Active.State)
	}
	from := r.Routing
	if target == from {
		return nil, fmt.Errorf("%w: the stream already has %d shards", ErrSameCount, from)
	}
	consume := l.ConsumeCount(from)
	l.Consume = consume // explicit from now on (ConsumeCount falls back only for Seq 0)
	l.Seq++
	m := &Migration{
		ID: fmt.Sprintf("rs-%d", l.Seq), From: from, To: target,
		CreatedAt: now, UpdatedAt: now, RequestedBy: by, Reason: reason,
	}
	if target > from {
		add := span(from, target)
		for _, i := range add {
			m.Shards = append(m.Shards, Shard{Index: i, Change: ChangeAdd, State: ShardPending})
		}
		m.Steps = []Step{
			{Kind: KindProvision, Shards: add, State: StatePreparing},
			{Kind: KindSwitch, Routing: target, Consume: max(target, consume), State: StatePreparing},
			{Kind: KindResize, State: StateActive},
			{Kind: KindFinish, State: StateDeprecated},
		}
	} else {
		remove := span(target, from)
		for _, i := range remove {
			m.Shards = append(m.Shards, Shard{Index: i, Change: ChangeRemove, State: ShardDraining})
		}
		m.Steps = []Step{
			{Kind: KindSwitch, Routing: target, Consume: max(from, consume), State: StatePreparing},
			{Kind: KindResize, State: StateActive},
			{Kind: KindGrace, State: StateDraining},
			{Kind: KindRetire, Shards: remove, State: StateDraining},
			{Kind: KindSwitch, Routing: target, Consume: target, State: StateDraining},
			{Kind: KindResize, State: StateDraining},
			{Kind: KindFences, Shards: remove, State: StateDraining},
			{Kind: KindFinish, State: StateDeprecated},
		}
	}
	m.State = m.Steps[0].State
	m.History = []History{{State: m.State, At: now, Node: node, Note: fmt.Sprintf("%d → %d shards requested by %s", from, target, by)}}
	l.Active = m
	return m, nil
}

// Rollback replaces the steps of the active migration id not yet done by
// those that restore its starting shard count. ErrNotFound for an unknown
// id; ErrRollbackNotAllowed (with the reason) for a finished migration or
// one already rolling back.
func (r *Record) Rollback(id, by, reason, node string, now time.Time) (*Migration, error) {
	m := r.Layout.Active
	if m == nil || m.ID != id {
		if old, ok := r.Layout.Find(id); ok {
			return nil, fmt.Errorf("%w: migration %s finished (%s at %s); scale the stream again instead",
				ErrRollbackNotAllowed, id, old.State, old.UpdatedAt.UTC().Format(time.RFC3339))
		}
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if m.Finished() {
		return nil, fmt.Errorf("%w: migration %s finished (%s); scale the stream again instead", ErrRollbackNotAllowed, id, m.State)
	}
	if m.State == StateRollingBack {
		return nil, fmt.Errorf("%w: migration %s is already rolling back (asked by %s)", ErrRollbackNotAllowed, id, m.RollbackBy)
	}
	switched := m.MetadataVersion != 0
	var steps []Step
	if m.To > m.From { // scale-out: the added shards must drain and go
		add := m.ShardsIn(ChangeAdd)
		// Before the switch routing never pointed at the added shards — but a producer
		// still holding a routing from before an earlier scale-in may have written into
		// a provisioned one (its XADD … NOMKSTREAM found the stream again). So in both
		// cases the added shards are consumed until they drain, and retired only after
		// the grace since the stream's last routing change (over at once when that was
		// long ago).
		steps = []Step{
			{Kind: KindSwitch, Routing: m.From, Consume: max(m.To, r.Layout.ConsumeCount(r.Routing)), State: StateRollingBack},
			{Kind: KindResize, State: StateRollingBack},
			{Kind: KindGrace, State: StateRollingBack},
			{Kind: KindRetire, Shards: add, State: StateRollingBack},
			{Kind: KindSwitch, Routing: m.From, Consume: m.From, State: StateRollingBack},
			{Kind: KindResize, State: StateRollingBack},
			{Kind: KindFences, Shards: add, State: StateRollingBack},
			{Kind: KindFinish, State: StateRolledBack},
		}
	} else { // scale-in: the removed shards come back (anew, empty, if already retired)
		if !switched {
			steps = []Step{{Kind: KindFinish, State: StateRolledBack}}
		} else {
			steps = []Step{
				{Kind: KindProvision, Shards: m.ShardsIn(ChangeRemove), State: StateRollingBack},
				{Kind: KindSwitch, Routing: m.From, Consume: m.From, State: StateRollingBack},
				{Kind: KindResize, State: StateRollingBack},
				{Kind: KindFinish, State: StateRolledBack},
			}
		}
	}
	m.Steps = append(m.Steps[:m.Next:m.Next], steps...)
	m.RollbackBy, m.RollbackReason = by, reason
	r.enter(m, now, node, fmt.Sprintf("rollback to %d shards requested by %s", m.From, by))
	return m, nil
}

// Complete records step (an index into the active migration id's steps)
// as done and moves to the next one. A switch step changes the routing
// count, the consuming count and bumps the metadataVersion here. A finish
// step that becomes current is completed at once: the migration moves to
// the history. ErrStaleStep if step is not the current step of id.
func (r *Record) Complete(id string, step int, node string, now time.Time) error {
	m := r.Layout.Active
	if m == nil || m.ID != id || m.Next != step || step >= len(m.Steps) {
		return fmt.Errorf("%w: %s step %d", ErrStaleStep, id, step)
	}
	st := m.Steps[step]
	switch st.Kind {
	case KindSwitch:
		if st.Routing != r.Routing {
			m.SwitchedAt = now
			r.Layout.RoutingChangedAt = now
		}
		r.Routing = st.Routing
		r.Layout.Consume = st.Consume
		r.MetadataVersion++
		m.MetadataVersion = r.MetadataVersion
	case KindProvision:
		for _, i := range st.Shards {
			if s := m.Shard(i); s != nil {
				// Retired stays: a rollback creates a retired shard anew,
				// and its retired stream is kept (and named) until it expires.
				s.State, s.Blocked = ShardProvisioned, nil
			}
		}
	case KindRetire:
		for _, i := range st.Shards {
			if s := m.Shard(i); s != nil && s.State != ShardRetired {
				return fmt.Errorf("reshard: %s: shard %d is not retired yet", id, i)
			}
		}
	}
	m.Next++
	m.Waiting = ""
	r.enter(m, now, node, "")
	return nil
}

// enter moves m's public state to that of its current step (recording the
// change) and finishes it when that step is KindFinish.
func (r *Record) enter(m *Migration, now time.Time, node, note string) {
	m.UpdatedAt = now
	cur, ok := m.Current()
	state := m.State
	if ok {
		state = cur.State
	}
	if state != m.State || note != "" {
		m.State = state
		m.History = append(m.History, History{State: state, At: now, Node: node, Note: note})
	}
	if ok && cur.Kind == KindFinish {
		m.Next = len(m.Steps)
		r.Layout.Active = nil
		keep := max(r.Keep, 1)
		r.Layout.History = append([]Migration{*m}, r.Layout.History...)
		if len(r.Layout.History) > keep {
			r.Layout.History = r.Layout.History[:keep]
		}
	}
}

// Retired records that shard i of the active migration id was retired to
// key (by the current retire step). It reports whether anything changed.
func (r *Record) Retired(id string, i int, key string, now time.Time) bool {
	m := r.Layout.Active
	if m == nil || m.ID != id {
		return false
	}
	s := m.Shard(i)
	if s == nil || s.State == ShardRetired {
		return false
	}
	s.State, s.Retired, s.Blocked = ShardRetired, key, nil
	m.UpdatedAt = now
	return true
}

// Blocked records what keeps shard i from retiring (what the migration
// waits for is set with Wait). It reports whether anything changed (the
// caller writes only then).
func (r *Record) Blocked(id string, i int, b []Backlog, now time.Time) bool {
	m := r.Layout.Active
	if m == nil || m.ID != id {
		return false
	}
	s := m.Shard(i)
	if s == nil || slices.Equal(s.Blocked, b) {
		return false
	}
	s.Blocked = b
	m.UpdatedAt = now
	return true
}

// Wait records what the current step waits for; it reports a change.
func (r *Record) Wait(id, waiting string, now time.Time) bool {
	m := r.Layout.Active
	if m == nil || m.ID != id || m.Waiting == waiting {
		return false
	}
	m.Waiting, m.UpdatedAt = waiting, now
	return true
}

// RetiredKey is where shard i's stream key is renamed to when migration id
// retires it: a hash tag equal to the whole stream key keeps it in the same
// Redis Cluster slot (RENAME needs that), and the id keeps retirements of
// the same index apart.
func RetiredKey(streamKey, id string) string {
	return "{" + streamKey + "}:retired:" + id
}

// FenceBase is the first fence token of a shard provisioned by a step that
// will activate metadataVersion mv: above every token an earlier incarnation
// of the same shard index can have reached (tokens advance by one per
// ownership change; 2^32 changes per incarnation), so a sink that keeps the
// highest token per shard never refuses the new owner.
func FenceBase(mv int64) int64 { return mv << 32 }
