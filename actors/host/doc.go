// Package host runs the actor system of one coordinator node and implements
// api.Service on top of it: it finds (or activates) the group actor for a
// {streamPrefix, consumerGroup}, sends it the request as a message and waits
// for the reply with a deadline.
//
// Single-node mode keeps a local registry of group actors; every stored group
// is activated at start so that members keep their leases across a restart.
// The multi-node actor host cluster replaces the registry with cluster
// identities; the group actor itself does not change, because every write it
// makes is already fenced by its activation epoch in Redis.
package host
