// Package service implements coordinator.Service for one coordinator node:
// it decodes nothing and knows no transport; every use (members, admin,
// monitoring, browse, debug) is a small type of its own, and Service
// composes them into the one value a transport is given.
//
// A request reaches a group's activation through actors/router (typed
// requests, one deadline from the caller's context); node-wide state (the
// node's refusal, store-loss holds, the node registry) comes from
// actors/node; stream records and shard streams from persistence; migrations
// are recorded here and driven by reshard/driver. The cluster-wide views
// (other nodes' activations, the cluster's health, the actor loop's ping)
// come from the host through ClusterViews.
//
// Order of every mutating call: check refusal → decode rules' inputs → ask
// the group (or the store) → log the change → answer.
//
// # What this package may import
//
// The standard library, coordinator, membersdk/protocol, persistence,
// reshard and reshard/driver, actors/group (and its groupmsg and groupdeps),
// actors/groupstate/model and actors/groupstate/answer, actors/node,
// actors/router and actors/wire (the NodeInfo views). Never fiber or api/,
// never protoactor directly (the router and the host own the actor system),
// never actors/host: the host composes this package.
package service
