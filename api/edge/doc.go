// Package edge holds the input checks at the HTTP edge, run before any
// Service call: path segments decoded once and validated as names
// (params.go), request bodies read and decoded (body.go: no
// Content-Encoding, protocol.DecodeJSON) and each body's fields checked
// (validate.go), and a body length that fasthttp and a proxy could read
// differently refused (hygiene.go). Every refusal is a 400 (415 for an
// encoded body) built with httpx.
//
// Allowed imports: the standard library, fiber v2, api/httpx, coordinator
// (the heartbeat check every transport shares) and membersdk/protocol.
package edge
