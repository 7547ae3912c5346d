package groupstate

import (
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Change is what an evaluation wants to happen. The shell persists it (if Durable) and only
// then calls Apply. Members holds new full versions of changed members (sorted by id); their
// slices may be shared with the group's state and must be treated as read-only.
type Change struct {
	Meta    *model.Meta    // nil = unchanged
	Members []model.Member // new full versions of changed members
	Removed []string       // member ids deleted for good
	Trimmed int            // how many of Removed were dropped by MaxRetained (for a metric)
	Durable bool           // false when only volatile fields changed: apply without persisting

	// moves: FenceMoves. A pointer, not a slice: it keeps every Change (one per evaluation)
	// 16 bytes smaller.
	moves *[]FenceMove

	bucket *joinBucket // volatile: the join token bucket after this evaluation (nil = unchanged)
}

// FenceMoves lists, sorted by shard, every shard whose holder a durable change moves
// (groupstate/fence): the shell writes those fences before it saves the change. Nil when the change
// moves no holder (always when not Durable).
func (c *Change) FenceMoves() []FenceMove {
	if c == nil || c.moves == nil {
		return nil
	}
	return *c.moves
}

// Decision is the result of evaluating one heartbeat. Change nil: nothing at all to apply.
type Decision struct {
	Response model.Response
	Change   *Change
}
