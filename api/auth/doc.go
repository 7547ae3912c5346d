// Package auth is who may call the HTTP API and what is recorded about it:
// authentication (Basic with bcrypt, bearer tokens: auth.go, tokens.go,
// tokengen.go), the role and stream/group scope decisions (auth.go's
// Require, scope.go, groupscope.go, scopefilter.go), rate limits for admin
// mutations and failed credentials (ratelimit.go, authlimit.go), the audit
// log and its refusal summaries (audit.go, refusals.go), and the two auth
// routes (login.go, revoke.go). Guard (guard.go) holds one server's state;
// package api puts its fiber handlers in front of every route.
//
// Allowed imports: the standard library, fiber v2, golang-jwt, x/crypto
// bcrypt, authz (the role and scope decision shared with the Redis
// mailbox), config, api/httpx, api/edge, api/metrics and membersdk/protocol.
// Not package api (it imports this one) nor the coordinator Service.
package auth
