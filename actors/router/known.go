package router

import (
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// knownTTL bounds how long a node trusts that a group it checked is stored
// (so that forwarding a heartbeat costs no store read); a group deleted
// through another node is noticed within it. A forwarded heartbeat the
// group's activation accepted (keepKnown) counts as a check that lasts a
// member lease: while members heartbeat, nothing is read (a group force-deleted
// while its members go on heartbeating through another node is noticed there
// within a lease). Known limit: within that window
// a join forwarded by such a node re-creates the deleted group as a new one
// (also with groups.creation explicit), because an activation cannot tell a
// deleted group from one the store lost.
const knownTTL = 5 * time.Second

// maxKnown bounds the cache; past it the cache starts over.
const maxKnown = 100_000

// KnownStored reports whether the group was recently seen stored.
func (r *Router) KnownStored(key persistence.GroupKey) bool {
	r.knownMu.Lock()
	defer r.knownMu.Unlock()
	until, ok := r.known[key]
	return ok && r.o.Now().Before(until)
}

// memberKnown reports whether a heartbeat answered with status was accepted
// by an activation that knows the member, i.e. of a stored group.
func memberKnown(status protocol.Status) bool {
	switch status {
	case protocol.StatusOK, protocol.StatusRevokePending, protocol.StatusSyncMetadata:
		return true
	}
	return false
}

// keepKnown extends the cache entry of a group whose activation just accepted
// a forwarded heartbeat of a member it knows: that proves the group stored as
// well as a store read would. Such an entry lasts one member lease (plus a
// heartbeat interval) rather than knownTTL, so that a node forwarding steady
// heartbeats reads nothing per group even when it sees a group less often than
// every knownTTL (without it: one full read of the group per knownTTL and
// group while nothing changes, O(groups) reads; docs/BENCHMARKS.md). The entry
// is rewritten only once half of it has run out.
func (r *Router) keepKnown(key persistence.GroupKey) {
	ttl := max(knownTTL, r.o.Rules.LeaseTTL+r.o.Rules.HeartbeatInterval)
	now := r.o.Now()
	r.knownMu.Lock()
	defer r.knownMu.Unlock()
	if until, ok := r.known[key]; ok && until.Sub(now) >= ttl/2 {
		return
	}
	if r.known == nil || len(r.known) >= maxKnown {
		r.known = map[persistence.GroupKey]time.Time{}
	}
	r.known[key] = now.Add(ttl)
}

// MarkKnown records that the group is stored (cluster mode only).
func (r *Router) MarkKnown(key persistence.GroupKey) {
	if !r.Clustered() {
		return
	}
	r.knownMu.Lock()
	defer r.knownMu.Unlock()
	if r.known == nil || len(r.known) >= maxKnown {
		r.known = map[persistence.GroupKey]time.Time{}
	}
	r.known[key] = r.o.Now().Add(knownTTL)
}

// ForgetKnown drops a group from the cache (deleted).
func (r *Router) ForgetKnown(key persistence.GroupKey) {
	r.knownMu.Lock()
	delete(r.known, key)
	r.knownMu.Unlock()
}
