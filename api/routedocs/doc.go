// Package routedocs holds the text tables of the HTTP API's OpenAPI
// document that the Go types do not carry: per route (Routes, an Op each)
// its summary, tag, bodies, success status, the Service errors and other
// statuses it can answer and its query parameters; per schema field
// (Fields) descriptions and enums, such as the heartbeat's special epochs
// and statuses. The api package registers its routes with these and
// derives the rest (role, rate limit, the full status list) from its route
// table, so the two cannot drift.
//
// Only data: no handlers, no HTTP. Changing an entry changes the committed
// document: regenerate it with
// `go test ./api -run TestOpenAPIUpToDate -update-openapi`.
//
// Allowed imports: the standard library, huma v2 (for *huma.Schema
// bodies), api/openapi (its Field type), coordinator (the error values
// only) and membersdk/protocol. Not the api package (it imports this one).
package routedocs
