package groupstate

import (
	"slices"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// durableEqual reports whether a and b agree on every field that must be persisted.
// Capacity is informational and fluctuates with in-flight work, so a capacity-only change
// is not worth a store write (SPEC §3 inv. 5); it is persisted with the next durable change.
func durableEqual(a, b *model.Member) bool {
	return a.ID == b.ID && a.Name == b.Name && a.State == b.State && a.Epoch == b.Epoch &&
		a.PrevEpoch == b.PrevEpoch && a.Principal == b.Principal && a.Incarnation == b.Incarnation &&
		a.InstanceID == b.InstanceID && a.Transport == b.Transport && a.SessionDeadline().Equal(b.SessionDeadline()) && a.JoinedAt.Equal(b.JoinedAt) && a.StateSince.Equal(b.StateSince) &&
		slices.Equal(a.Target, b.Target) && slices.Equal(a.Assigned, b.Assigned) &&
		slices.Equal(a.Revoking, b.Revoking) && slices.Equal(a.Pending, b.Pending)
}

// deepCopy returns m with its own slices and session deadline.
func deepCopy(m model.Member) model.Member {
	m.Target = slices.Clone(m.Target)
	m.Assigned = slices.Clone(m.Assigned)
	m.Revoking = slices.Clone(m.Revoking)
	m.Pending = slices.Clone(m.Pending)
	m.SetSessionDeadline(m.SessionDeadline())
	return m
}
