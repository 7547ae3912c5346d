// Package api is the coordinator's HTTP front (SPEC §4–§5): a fiber app that
// decodes, validates, authenticates, rate-limits and maps errors, and hands
// every decision to a coordinator.Service (the transport-neutral boundary,
// implemented by the actor host). It is one adapter of that Service; it
// never decides ownership.
//
// # Use
//
//	srv := api.New(api.Config{...}, svc)   // panics if Config.Validate fails
//	go srv.Listen("127.0.0.1:8080")        // or srv.Serve(ln); srv.Addr()
//	...
//	srv.Shutdown(ctx)                      // drains in-flight requests
//
// srv.App() is the *fiber.App (app.Test in tests). Options: WithMetrics
// (default metrics.Default, served on /metrics) and WithClock (tests).
//
// # Contracts
//
// Routes and the role each needs are listed in routes.go; roles and
// authentication in api/auth (auth.go; bearer tokens in tokens.go).
//
//   - Every handler validates before it calls the Service: path segments are
//     percent-decoded once and checked with protocol.ValidateName /
//     ValidateMemberID; bodies are decoded with protocol.DecodeHeartbeat or
//     protocol.DecodeJSON and checked (api/edge). Invalid input is 4xx and
//     the Service is not called, so it changes no state.
//   - Heartbeat protocol outcomes are HTTP 200 with the status in the body;
//     the Service produces them (including INVALID_REQUEST for a path/body
//     memberId mismatch and memberEpoch < -1, and UNSUPPORTED_PROTOCOL).
//   - Every non-2xx answer is {"status","errorCode","message"} with
//     Content-Type application/json, where status is the upper-snake HTTP
//     reason (BAD_REQUEST, UNAUTHORIZED, …). This covers unknown routes (404),
//     wrong methods (405), bodies over Config.BodyLimit (400 PAYLOAD_TOO_LARGE), compressed
//     bodies (415), rate limits (429, Retry-After), Service errors (mapped in
//     api/httpx errors.go, the only place that does it) and panics (500, generic).
//     Two deliberate shapes: /monitoring/health always answers 200 with
//     UP/DEGRADED/DOWN in the body (the reference's dashboards read it), and
//     /monitoring/ready answers 503 when DOWN with the health body plus
//     errorCode and message (probes read the status code).
//   - Names follow the reference (docs/PROTOCOL.md "Names"): non-blank UTF-8
//     without control characters, braces refused in a stream prefix.
//   - Error codes are the reference's where it names the condition
//     (STREAM_PREFIX_ALREADY_EXISTS, ACTIVE_MIGRATION_EXISTS,
//     GROUP_HAS_ACTIVE_MEMBERS, RATE_LIMIT_EXCEEDED, STATE_VERSION_CONFLICT).
//   - 500 and 503 messages are generic; the detail is logged. Passwords,
//     tokens, token secrets and Authorization headers are never logged, nor
//     usernames that match no configured user.
//   - With no users configured, authentication is OFF (development only) and
//     New logs a warning saying so.
//   - Each Service call gets a context bounded by Config.RequestTimeout;
//     running out of time is 503 TIMEOUT with Retry-After: 1.
//   - Routes are typed handlers (typed.go: input struct in, response value
//     out) from which huma derives the OpenAPI document (package openapi;
//     committed as api/openapi/openapi.json, served at
//     /coord/v1/openapi.json, viewer at /docs); package api/routedocs adds
//     what types do not say (summary, errors, field descriptions). The
//     heartbeat and a few text routes stay plain fiber handlers, documented
//     by hand (Server.raw).
//     Tests hold the router, the document and the statuses each route
//     answers together (openapi_test.go).
//   - Admin mutations and logins are audited (api/auth audit.go); every request
//     has an id, echoed in X-Request-Id and handed to the Service in the
//     context (api/httpx requestid.go).
//   - BeginDrain (drain.go) starts a graceful shutdown: new work is
//     answered 503 SHUTTING_DOWN, readiness is 503, liveness stays 200.
//
// Known limit: a request whose method fasthttp does not know at all (not
// GET, POST, …) is answered by fiber itself with a plain-text 400.
//
// # Tests, fuzzing, benchmark
//
//	go test -race ./api/...
//	go test ./api -run XXX -fuzz FuzzHeartbeatRoute -fuzztime 5m
//	go test ./api -run XXX -fuzz FuzzAdminDecode -fuzztime 5m
//	go test ./api -run XXX -bench BenchmarkHeartbeatRoute -benchtime 3s
//
// The benchmark reports the heartbeat route next to bare fiber handlers in
// the same run; compare rsc-* with baseline-*.
//
// # Packages and imports
//
// api is the server, its routes and handlers. Below it, each with one job:
// api/auth (who may call, rate limits, audit), api/edge (input checks),
// api/httpx (the error answer, request ids), api/openapi (the document and
// its viewer), api/routedocs (the document's text per route and field),
// api/metrics, api/console and api/freshconn (shutdown does not wait on
// connections that never sent a request). api may import those, fiber
// v2, huma v2, config, coordinator (the Service boundary) and
// membersdk/protocol; never the actor host, persistence or reshard.
package api
