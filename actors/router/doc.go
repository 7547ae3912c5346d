// Package router knows where a group's activation lives and how a request
// reaches it. On a single node it keeps the registry of this node's group
// actors (spawning one on first use); in an actor host cluster it forwards
// each request to the group's grain wherever the cluster places it. Either
// way a caller asks through a typed method (Heartbeat, Describe, Delete,
// Resize, Touch, Debug) and gets the typed reply or an error: one deadline,
// taken from the caller's context (capped by the request timeout), read on
// the node's one clock (Options.Now).
//
// It also keeps the cluster's "known stored" cache (known.go): groups a node
// recently saw stored, so that forwarding a heartbeat costs no store read.
//
// Errors the group actors report are turned into the service's sentinels
// (errors.go: StoreErr, GroupErr).
//
// # What this package may import
//
// The standard library, protoactor-go (actor, cluster), actors/group, its
// groupmsg and groupwire (the messages and their wire form),
// actors/groupstate/model (the rules' configuration), actors/wire,
// persistence, coordinator (the error sentinels) and membersdk/protocol. Never fiber or api/, never
// actors/node, actors/service or actors/host: those compose the router.
package router
