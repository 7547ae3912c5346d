package group

import "github.com/redisstream/coordinator/membersdk/protocol"

// The work in flight members report (the actor's inFlight field, monitoring only).

// noteInFlight remembers the work in flight that member id's heartbeat
// reported on each shard it is revoking (revokingShards[].inFlight), for the
// monitoring views only (RevokeDetail.InFlight): no decision reads it. Only
// shards the member is still revoking after the heartbeat are kept, so the
// map is bounded by the group's shards; a member that revokes nothing has no
// entry. Callers skip it when the member reports no revocation and has no
// entry, so steady-state heartbeats pay nothing.
func (a *groupActor) noteInFlight(id string, reported []protocol.RevokingShard) {
	m, ok := a.state.Member(id)
	if !ok || len(m.Revoking) == 0 || len(reported) == 0 {
		delete(a.inFlight, id)
		return
	}
	counts := make(map[int]int, len(m.Revoking))
	for _, r := range reported {
		counts[r.Shard.ShardIndex] = r.InFlight
	}
	kept := make(map[int]int, len(m.Revoking))
	for _, s := range m.Revoking {
		if n, ok := counts[s]; ok {
			kept[s] = n
		}
	}
	if len(kept) == 0 {
		delete(a.inFlight, id)
		return
	}
	a.inFlight[id] = kept
}
