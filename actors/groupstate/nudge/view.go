package nudge

import (
	"slices"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// View reads a group as it will be once a change is applied.
type View struct {
	Before  func(id string) *model.Member // the group's member id before the change (nil: none)
	Holder  func(shard int) string        // who may read shard before the change ("" = free)
	Changed []model.Member                // the change's new member versions
	Removed []string                      // the change's removed members
}

// Touches reports whether the change touches member id (a new version, or removed).
func (v View) Touches(id string) bool {
	return v.version(id) != nil || slices.Contains(v.Removed, id)
}

// version is c's new version of member id, nil when c has none.
func (v View) version(id string) *model.Member {
	for i := range v.Changed {
		if v.Changed[i].ID == id {
			return &v.Changed[i]
		}
	}
	return nil
}

// after is member id once c is applied (nil: removed or unknown).
func (v View) after(id string) *model.Member {
	if m := v.version(id); m != nil {
		return m
	}
	if slices.Contains(v.Removed, id) {
		return nil
	}
	return v.Before(id)
}

func holds(m *model.Member, s int) bool {
	return m != nil && m.State.Holds() && (shardset.Contains(m.Assigned, s) || shardset.Contains(m.Revoking, s))
}

// heldByOther reports whether a member other than self may still read shard s once c is applied.
func (v View) heldByOther(s int, self string) bool {
	if h := v.Holder(s); h != "" && h != self && holds(v.after(h), s) {
		return true
	}
	for i := range v.Changed {
		if m := &v.Changed[i]; m.ID != self && holds(m, s) {
			return true
		}
	}
	return false
}

// freesShards reports whether c releases a shard some member held before it.
func (v View) FreesShards() bool {
	for _, id := range v.Removed {
		if m := v.Before(id); m != nil && m.State.Holds() && len(m.Assigned)+len(m.Revoking) > 0 {
			return true
		}
	}
	for i := range v.Changed {
		before := v.Before(v.Changed[i].ID)
		if before == nil || !before.State.Holds() {
			continue
		}
		for _, set := range [][]int{before.Assigned, before.Revoking} {
			for _, s := range set {
				if !holds(&v.Changed[i], s) {
					return true
				}
			}
		}
	}
	return false
}

// grows reports whether m (its version once c is applied) has a pending shard nobody else
// holds that it could not be given before c.
func (v View) Grows(m *model.Member) bool {
	before := v.Before(m.ID)
	for _, s := range m.Pending {
		if v.heldByOther(s, m.ID) {
			continue
		}
		if before == nil || !shardset.Contains(before.Pending, s) {
			return true
		}
		if h := v.Holder(s); h != "" && h != m.ID {
			return true // pending before too, but held by another member then
		}
	}
	return false
}
