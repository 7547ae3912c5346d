// Package groupstate holds the core rules of the coordinator: KIP-848 style, coordinator-managed,
// revoke-before-assign reconciliation of Redis Stream shards for one {streamPrefix, consumerGroup}.
// It imports only the standard library and its own subpackages, and does no I/O; time is always
// an argument. The rules are one package of files named by concern (heartbeat.go, join.go,
// leave.go, steady.go, static.go, identity.go, limits.go, movecap.go, reconcile.go, pause.go,
// fences.go, nudge.go, interval.go, capacity.go, invariants.go, ...). Its subpackages are
// stdlib-only leaves with users of their own, never importing groupstate: model (the
// vocabulary shared with the shells: Config, Heartbeat, Response, Member, Meta, statuses and
// states), answer (the request contract and the answers decided without a group's state,
// which the service layer gives too), assign (the target assignors, uniform and
// capacity-weighted) and shardset (sorted shard-set helpers, which answer uses as well).
//
// # Contract
//
// Evaluations — Heartbeat, Expire, Tick, Prune, Resize, SetAssignment — are pure with respect to the Group:
// they read it and return a Decision/Change, never mutating it. The caller (the group actor)
// must follow this order:
//
//  1. evaluate (d := g.Heartbeat(hb, now));
//  2. if d.Change != nil && d.Change.Durable, write the shard fences it moves
//     (Change.FenceMoves, fences.go), then persist the Change (Meta, Members, Removed) and
//     wait until it is durable; if either fails, drop the Change and answer RETRY
//     (Unevaluated, CauseNotStored);
//  3. g.Apply(d.Change) (also for non-durable Changes: they carry lease renewals);
//  4. only then send d.Response. Nothing is told to a member before it is durable (SPEC §3 inv. 5).
//
// Changes must be applied in the order they were evaluated, each against the state it was
// evaluated on (evaluate → apply → evaluate …). A steady-state heartbeat yields a non-durable
// Change holding only that member (lease renewal): it costs O(shards of that member), never
// O(group), and allocates nothing: the Change is the Group's own, reused by the next steady
// heartbeat's evaluation (steady.go), so apply it, or drop it, before evaluating again.
// Durable fields are everything except LastHeartbeat, LeaseDeadline and RevokeDeadline
// (tagged `json:"-"`); a capacity-only change is also not worth a write.
//
// Answers decided without a group's state are made here too, so that no shell decides a
// protocol outcome: Reject (what every group rejects), UnknownGroup (a group the store does
// not have), Group.UnknownClaims (claims an empty group never had: a hold), and Unevaluated
// (a cause the shell observed: the status and the text, groupstate/answer).
//
// Timers: after Apply, the shell (re)arms a member timer at NextDeadline(id) and calls Expire
// when it fires; a stale timer yields nil. Restore gives every non-expired member a fresh lease
// and revoke deadline, so a restart or failover alone never expires or fences anyone. After a
// graceful hand-over, HandOver and RestoreHandedOver carry the timers instead, so that moving
// the activation never extends a dead member's lease (handover.go).
//
// # Invariants (checked by CheckInvariants, the simulation and the fuzz target)
//
//   - Single holder: a shard is in Assigned ∪ Revoking of at most one non-EXPIRED member, and
//     it enters a member's Assigned only when no other member holds it. FENCED members keep
//     blocking their shards until their lease expires or they rejoin owning nothing.
//   - The target assignment covers every shard, balanced within one, over the confirmed
//     (ACTIVE) members when any exists, else over every live (STARTING/ACTIVE) member; an
//     unconfirmed member has no target while others are confirmed (admission: nothing is ever
//     revoked for a member that has not proven it is alive). It is recomputed only when
//     groupEpoch > assignmentEpoch, sticky: a join or a confirmation moves only what balance
//     needs, a departure only the departed's shards.
//   - Assigned ⊆ Target once a member is at the assignment epoch; Pending = Target − Assigned.
//   - Every revocation gets the full rebalance timeout: a member still draining an earlier one
//     is told about newer ones only once it has released it (those shards stay Assigned and
//     keep blocking others meanwhile); starting to leave starts a new timeout.
//   - Epochs and metadataVersion never decrease; member epoch ≤ assignment epoch ≤ group epoch.
//     Only the coordinator moves them: a reported metadataVersion above the group's is answered
//     SYNC_METADATA and never adopted; an epoch other than the one issued is fenced.
//   - A leave frees every shard not reported DRAINING (or REVOKING) at once.
//   - Static membership: one live member per instanceId; an away member holds nothing and its
//     target goes whole to the next incarnation of its instance (static.go).
//   - Limits (Config.MaxMembers, JoinRate) refuse a join with RETRY and Response.Limit and
//     change nothing; MaxRetained drops the oldest EXPIRED/FENCED members holding nothing.
//   - While an operator paused rebalancing (Meta.Paused, pause.go) no live member starts a
//     voluntary revocation; free shards (an expired or fenced member's, never assigned ones)
//     are still granted at once. Resuming lets the next heartbeats rebalance.
//   - While grants are held (HoldGrantsUntil, after the store lost data) nothing is newly
//     granted and members are told only what they report reading.
//   - Rejected requests (UNSUPPORTED_PROTOCOL, INVALID_REQUEST, UNKNOWN_MEMBER_ID, RETRY for a
//     limit, heartbeats of an already fenced member) change nothing. Bad input never panics.
//
// # Known limits
//
//   - A heartbeat delivered twice in a row (a client retry) is harmless. A stale request
//     delivered after a newer one of the same member (reordering across coordinator URLs) is
//     not detectable in protocol v1 (requestId is not ordered): at the same member epoch it
//     could report a revoking shard as released while the member still drains it. The shell
//     should route every member's heartbeats through the one group actor in order.
package groupstate
