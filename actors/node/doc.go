// Package node is this coordinator node's life: the renewal of its record in
// the store (one renewal confirms every group activation of the node), the
// node registry and its conflicts (nodes that share the store without being
// in one cluster), eviction from the cluster, store-loss holds and the new
// data set. Its Node is the one groupdeps.Node the group actors of the node talk
// to.
//
// What the node needs from the host that runs its group actors (their PIDs,
// releasing them, the cluster's member ids, block lists and placement) it
// gets through two small interfaces given in Options: Groups and Cluster.
//
// Imports: the standard library, persistence, actors/group (the messages a
// node sends its groups and their timing), actors/group/groupdeps (the Node
// interface), actors/groupstate/model (the rules' timing configuration),
// membersdk/protocol (health views) and protoactor-go/actor for the PID type
// of groupdeps.Node only. It must not
// import fiber, api, coordinator or actors/host: the host composes it.
package node
