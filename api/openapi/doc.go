// Package openapi holds the HTTP API's OpenAPI 3.1 document: the huma
// (github.com/danielgtaylor/huma/v2) API that derives it from the typed
// handlers the api package registers, the committed copy (openapi.json,
// embedded and served at /coord/v1/openapi.json) and its offline viewer
// (/docs).
//
// What huma derives: paths, parameters (from the handlers' input structs'
// path/query tags), request and response schemas (from the Go types) and
// the success status. What the api package adds per operation (Route):
// summary, tag, role (x-rsc-role), rate limit and audit (x-rsc-rate-limited,
// x-rsc-audited), security and every error status the route can answer,
// each with the {status, errorCode, message} body.
//
// Extensions: x-rsc-role on every operation (PUBLIC, READ, WRITE, MEMBER,
// READ_OR_MEMBER, ANY_ROLE, ADMIN; MEMBER and ANY_ROLE routes are public when
// auth.authenticate-member-api is off), x-rsc-rate-limited and x-rsc-audited
// on admin mutations and login.
//
// The committed document must equal what the router produces
// (TestOpenAPIUpToDate in package api, run by `make check`; rewrite it with
// `go test ./api -run TestOpenAPIUpToDate -update-openapi`).
//
// Allowed imports: the standard library, huma (core and adapters/humafiber),
// fiber v2 and membersdk/protocol. Not the api package (it imports this one)
// nor the coordinator.
package openapi
