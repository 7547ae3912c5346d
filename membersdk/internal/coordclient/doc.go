// Package coordclient is the member SDK's HTTP client of the coordinator: it
// sends JSON requests to the first coordinator URL that answers, stays on it
// until it fails (failover in order), bounds each round, authorizes every
// request (basic, bearer, or a token function) and logs in for a bearer
// token (Login). It knows nothing of the heartbeat or routing protocol
// beyond paths: the caller chooses the path and the body, and turns a
// non-2xx answer into its own error types (Client.NewError).
//
// It may import the standard library and membersdk/protocol only.
package coordclient
