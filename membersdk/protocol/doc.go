// Package protocol holds the wire contract of the coordinator: the v1 member
// heartbeat (request, response, statuses), the admin and monitoring bodies, the
// error body, the producer routing hash and the naming of shard stream keys.
//
// It lives in the member SDK's module so that the server (api/, actors/) and
// the member SDK (membersdk/) share one definition without the SDK pulling in
// the server. It may import the standard library and murmur3 (the routing
// hash) only. Field names are camelCase and must stay wire-compatible with the
// published v1 clients: add fields, never rename.
package protocol
