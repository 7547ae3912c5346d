// Package host wires one coordinator node: it starts the actor system (and
// filters the actor libraries' log lines, logging.go and libfilter*.go),
// joins and leaves the actor host cluster (cluster*.go), runs the sweep
// (groups with live members that no node hosts are activated) and the prune
// loop, and composes the packages that do the work:
//
//   - actors/node: this node's life — one renewal of its record per round
//     confirms every activation of the node, notices when Redis lost data,
//     finds node conflicts and eviction (nodeside.go is what it asks of the
//     cluster);
//   - actors/router: where a group's activation lives and how a request
//     reaches it (the local registry, which is also the node's node.Groups,
//     or cluster grains);
//   - reshard/driver: the migrations (reshard_node.go is what it sees of the
//     node);
//   - actors/service: the coordinator.Service a transport is given
//     (Host.Service).
//
// Every write of a group actor is fenced by the activation epoch in Redis,
// and the confirmation argument holds for any number of nodes
// (docs/RELIABILITY.md), so single mode and cluster mode differ only in the
// router.
//
// # What this package may import
//
// The standard library, protoactor-go (actor, cluster, remote), actors/group
// (and its groupmsg and groupdeps), actors/groupstate/model, actors/node, actors/router, actors/service, actors/wire,
// coordinator, persistence, reshard/driver and membersdk/protocol. Never fiber
// or api/: cmd/coordinator hands Host.Service to the transports.
package host
