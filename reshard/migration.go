package reshard

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Public migration states (SPEC §5).
const (
	StatePreparing   = "PREPARING"
	StateActive      = "ACTIVE"
	StateDraining    = "DRAINING"
	StateDeprecated  = "DEPRECATED"
	StateRollingBack = "ROLLING_BACK"
	StateRolledBack  = "ROLLED_BACK"
)

// Shard changes and states.
const (
	ChangeAdd    = "ADD"
	ChangeRemove = "REMOVE"

	ShardPending     = "PENDING"     // an ADD shard not provisioned yet
	ShardProvisioned = "PROVISIONED" // stream and every group's consumer group exist
	ShardDraining    = "DRAINING"    // a REMOVE shard, still consumed
	ShardRetired     = "RETIRED"     // renamed away after it drained
)

// Sentinel errors.
var (
	// ErrActive: another migration of the stream has not finished.
	ErrActive = errors.New("reshard: a migration of this stream is already in progress")
	// ErrSameCount: the target equals the current routing shard count.
	ErrSameCount = errors.New("reshard: target shard count equals the current shard count")
	// ErrNotFound: no migration with that id (active or in the history).
	ErrNotFound = errors.New("reshard: migration not found")
	// ErrRollbackNotAllowed: the migration finished, or is already rolling back.
	ErrRollbackNotAllowed = errors.New("reshard: rollback not allowed")
	// ErrStaleStep: Complete was called for a step that is not the current one
	// (another driver, or a rollback, moved the migration on).
	ErrStaleStep = errors.New("reshard: step is no longer the current one")
)

// Migration is one resharding of a stream, as stored.
type Migration struct {
	ID             string    `json:"id"`
	From           int       `json:"from"`
	To             int       `json:"to"`
	State          string    `json:"state"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
	RequestedBy    string    `json:"requestedBy"`
	Reason         string    `json:"reason,omitempty"`
	RollbackBy     string    `json:"rollbackBy,omitempty"`
	RollbackReason string    `json:"rollbackReason,omitempty"`
	// MetadataVersion is the routing version the migration activated (0
	// while PREPARING).
	MetadataVersion int64 `json:"metadataVersion"`
	// SwitchedAt is when this migration last changed the routing count
	// (activation, or the switch back of a rollback).
	SwitchedAt time.Time `json:"switchedAt,omitzero"`
	Shards     []Shard   `json:"shards"`
	Steps      []Step    `json:"steps"`
	// Next indexes the current step in Steps (len(Steps) once finished).
	Next    int       `json:"next"`
	History []History `json:"history"`
	// Waiting says what the current step waits for (operator text).
	Waiting string `json:"waiting,omitempty"`
}

// Shard is one shard the migration adds or removes.
type Shard struct {
	Index  int    `json:"index"`
	Change string `json:"change"`
	State  string `json:"state"`
	// Retired is the key the stream was renamed to, once retired.
	Retired string `json:"retired,omitempty"`
	// Blocked lists what kept a draining shard from retiring, as last checked.
	Blocked []Backlog `json:"blocked,omitempty"`
}

// Backlog is one consumer group's unfinished work on a shard.
type Backlog struct {
	Group   string `json:"group"`
	Pending int64  `json:"pending"`
	Lag     int64  `json:"lag"` // -1: Redis cannot tell
}

// History is one state change.
type History struct {
	State string    `json:"state"`
	At    time.Time `json:"at"`
	Node  string    `json:"node,omitempty"`
	Note  string    `json:"note,omitempty"`
}

// Finished reports whether the migration reached a terminal state.
func (m *Migration) Finished() bool {
	return m.State == StateDeprecated || m.State == StateRolledBack
}

// Current returns the current step (ok false once finished).
func (m *Migration) Current() (Step, bool) {
	if m.Next >= len(m.Steps) {
		return Step{}, false
	}
	return m.Steps[m.Next], true
}

// ShardsIn returns the indices of the migration's shards with the given change.
func (m *Migration) ShardsIn(change string) []int {
	var out []int
	for _, s := range m.Shards {
		if s.Change == change {
			out = append(out, s.Index)
		}
	}
	return out
}

// Shard returns the migration's shard with index i (nil if it has none).
func (m *Migration) Shard(i int) *Shard {
	for k := range m.Shards {
		if m.Shards[k].Index == i {
			return &m.Shards[k]
		}
	}
	return nil
}

// Layout is the resharding state stored with a stream (the stream record's
// opaque Extra).
type Layout struct {
	// Consume is the number of shard streams [0, Consume) that exist and are
	// assigned to members (0 in a record written before resharding existed:
	// then it equals the routing count; see ConsumeCount).
	Consume int `json:"consume"`
	// Seq numbers migrations (ids "rs-<seq>").
	Seq     int64       `json:"seq"`
	Active  *Migration  `json:"active,omitempty"`
	History []Migration `json:"history,omitempty"` // finished migrations, newest first
	// RoutingChangedAt is when the routing count last changed, by whichever
	// migration: producers may route with an older count until
	// RoutingChangedAt + grace, so no shard is retired before (see
	// LastRoutingChange for records written before it existed).
	RoutingChangedAt time.Time `json:"routingChangedAt,omitzero"`
}

// Decode reads a Layout from a stream record's Extra (empty: a stream that
// never resharded).
func Decode(extra []byte) (Layout, error) {
	var l Layout
	if len(extra) == 0 {
		return l, nil
	}
	if err := json.Unmarshal(extra, &l); err != nil {
		return Layout{}, fmt.Errorf("reshard: decode stream layout: %w", err)
	}
	return l, nil
}

// Encode writes a Layout for the stream record's Extra.
func (l Layout) Encode() []byte {
	b, err := json.Marshal(l)
	if err != nil {
		panic(fmt.Sprintf("reshard: encode layout: %v", err)) // plain data: cannot fail
	}
	return b
}

// ConsumeCount is the consuming shard count of a stream whose routing count
// is routing.
func (l Layout) ConsumeCount(routing int) int {
	if l.Consume == 0 && l.Seq == 0 {
		return routing
	}
	return l.Consume
}

// LastRoutingChange is when the stream's routing count last changed (zero:
// never by a migration). A record written before RoutingChangedAt existed
// falls back to the latest switch its migrations recorded.
func (l Layout) LastRoutingChange() time.Time {
	last := l.RoutingChangedAt
	for _, m := range l.All() {
		if m.SwitchedAt.After(last) {
			last = m.SwitchedAt
		}
	}
	return last
}

// GraceUntil is when producers can no longer route with a routing count
// older than the current one: the last routing change plus grace.
func (l Layout) GraceUntil(grace time.Duration) time.Time {
	return l.LastRoutingChange().Add(grace)
}

// GraceOver reports whether a grace step can complete at now.
func (l Layout) GraceOver(grace time.Duration, now time.Time) bool {
	return !now.Before(l.GraceUntil(grace))
}

// Find returns the migration with id (active or in the history).
func (l Layout) Find(id string) (Migration, bool) {
	if l.Active != nil && l.Active.ID == id {
		return *l.Active, true
	}
	for _, m := range l.History {
		if m.ID == id {
			return m, true
		}
	}
	return Migration{}, false
}

// All returns every migration, newest first.
func (l Layout) All() []Migration {
	out := make([]Migration, 0, len(l.History)+1)
	if l.Active != nil {
		out = append(out, *l.Active)
	}
	return append(out, l.History...)
}
