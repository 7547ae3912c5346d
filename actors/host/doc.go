// Package host runs the actor system of one coordinator node and implements
// coordinator.Service on top of it: it finds (or activates) the group actor
// for a {streamPrefix, consumerGroup}, sends it the request as a message and
// waits for the reply with a deadline.
//
// Single-node mode keeps a local registry of group actors. Groups are
// activated on first request, and by the sweep (sweep.go) when they have live
// members that no live node hosts; idle groups passivate. One renewal of the
// node's record per round confirms every activation of the node (node.go);
// the same renewal notices when Redis lost data (statelost.go). The
// multi-node actor host cluster replaces the registry with cluster
// identities; the group actor and the node record do not change, because
// every write is fenced by the activation epoch in Redis and the
// confirmation argument holds for any number of nodes (docs/RELIABILITY.md).
package host
