// Package groupdeps is the contract between a group actor (actors/group) and the node that
// hosts it, kept apart because the other side implements it on its own terms without
// importing the actor:
//
//   - Node, with NewDataSet and the loss kinds (LossMemberClaims, LossActiveReaders,
//     LossStoreBehind): implemented by actors/node, whose health and logs name the kinds
//     (also read by actors/service and actors/host); NopNode for tests and tools;
//   - Metrics and the optional IdentityMetrics and FenceMetrics: implemented by the metrics
//     sink cmd/coordinator wires in (api/metrics), handed to every group by actors/host;
//   - Nudger: implemented by the Redis mailbox transport (mailbox), wired by cmd/coordinator.
//
// What only the group actor uses (the defaults of its Deps) lives in actors/group.
// Interfaces and small values only; it imports protoactor's actor package (for PIDs) and
// persistence (for group keys).
package groupdeps
