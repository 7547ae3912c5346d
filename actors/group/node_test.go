package group

import (
	"time"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/persistence"
)

// testNode is a NopNode whose store check and per-group hold reports a test may set.
type testNode struct {
	groupdeps.NopNode

	verify func() error
	lost   func(key persistence.GroupKey, kind, reason string, until time.Time)
}

func (n testNode) VerifyStore() error {
	if n.verify == nil {
		return nil
	}
	return n.verify()
}

func (n testNode) GroupStateLost(key persistence.GroupKey, kind, reason string, until time.Time) {
	if n.lost != nil {
		n.lost(key, kind, reason, until)
	}
}
