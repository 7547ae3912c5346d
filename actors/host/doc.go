// Package host runs the actor system of one coordinator node and implements
// coordinator.Service on top of it: it finds (or activates) the group actor
// for a {streamPrefix, consumerGroup}, sends it the request as a message and
// waits for the reply with a deadline.
//
// Single-node mode keeps a local registry of group actors. Groups are
// activated on first request, and by the sweep (sweep.go) when they have live
// members that no live node hosts; idle groups passivate. The node's life —
// one renewal of its record per round confirms every activation of the node,
// notices when Redis lost data, and finds node conflicts and eviction — is
// actors/node; the host composes it and is its group registry (nodeside.go). The
// multi-node actor host cluster replaces the registry with cluster
// identities; the group actor and the node record do not change, because
// every write is fenced by the activation epoch in Redis and the
// confirmation argument holds for any number of nodes (docs/RELIABILITY.md).
package host
