// Package group is the actor shell around the KIP-848 rules in
// actors/groupstate: one group actor per {streamPrefix, consumerGroup}, and
// one member actor per member, supervised by its group actor.
//
// The group actor handles one message at a time and follows one order for
// every message that can change state:
//
//	decode → evaluate (groupstate, pure, time passed in) → persist (only if
//	the change is durable) → apply to memory → re-arm member timers → respond
//
// Nothing is applied or told before it is durable, and a failed write leaves
// memory unchanged and answers RETRY (heartbeats) or ErrUnavailable (admin).
// Steady-state heartbeats change only volatile lease fields and write nothing.
//
// A member actor holds no rules: its timer is the member's lease (or its
// rebalance deadline, whichever is sooner), and it holds nothing the group
// cannot give back (supervision.go). When it fires, the member
// actor tells its group actor, which asks groupstate whether the deadline
// really passed at `now` (a heartbeat may have been queued behind the timer)
// and either expires/fences the member or re-arms the timer.
//
// Each activation of a group takes an activation epoch from the store
// (persistence.Store.Activate); every write carries it, so a stale activation
// on a partitioned node is fenced by Redis and stops itself.
//
// Each concern of the group actor is a file of this package, among them:
//
//   - refusals.go: identity refusals, logged and counted once;
//   - handover.go: the members' timers a graceful release stores for the next activation;
//   - events.go: recent member events (fencings, expiries), listed and stored with the group;
//   - views.go, debug.go: the monitoring views and ownership sample; the debug view;
//   - fence.go: the shard fences, written before a change that moves a holder is saved;
//   - member.go, member_mailbox.go: the member actor (its timer is the member's lease) and its
//     small mailbox; supervision.go: how the group actor supervises and re-arms them;
//   - dispatch.go: the workers every group and member actor of the process runs on.
//
// Subpackages, which import none of group:
//
//   - groupmsg: the messages it answers; groupwire: their protobuf form; groupdeps: what it
//     needs from its node.
//
// group itself may import them, groupstate, reshard, persistence, actors/wire,
// membersdk/protocol and protoactor; never a transport or actors/host.
package group
