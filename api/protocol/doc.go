// Package protocol holds the wire contract of the coordinator: the v1 member
// heartbeat (request, response, statuses), the admin and monitoring bodies, the
// error body, the producer routing hash and the naming of shard stream keys.
//
// It is imported by the server (api/, actors/) and by the member SDK
// (membersdk/) so that both ends share one definition. It depends on the
// standard library only. Field names are camelCase and must stay
// wire-compatible with the published v1 clients: add fields, never rename.
package protocol
