package api

import (
	"net/http"
	"slices"
	"sort"
	"strconv"

	"github.com/redisstream/coordinator/api/auth"
	"github.com/redisstream/coordinator/api/routedocs"
	"github.com/redisstream/coordinator/coordinator"

	"github.com/gofiber/fiber/v2"
)

// What the document says of each route beyond its types: its role, the
// statuses it answers (TestOpenAPIStatusesAreReal provokes each), the
// required fields of request bodies and the path parameters' meaning.

// roleName is the x-rsc-role of an access level.
func roleName(a auth.Access) string {
	switch a {
	case auth.AccessRead:
		return "READ"
	case auth.AccessWrite:
		return "WRITE"
	case auth.AccessMember:
		return "MEMBER"
	case auth.AccessRouting:
		return "READ_OR_MEMBER"
	case auth.AccessProtocol:
		return "ANY_ROLE"
	case auth.AccessAdmin:
		return "ADMIN"
	}
	return "PUBLIC"
}

// statuses are the HTTP statuses a route can answer, derived from what it
// does; TestOpenAPIStatusesAreReal provokes each of them.
func statuses(d routedocs.Op, method string, need auth.Access, limited bool, params []string) []int {
	set := map[int]bool{d.OK: true}
	if method != fiber.MethodGet && method != fiber.MethodHead || d.CrossOriginGuard {
		set[http.StatusForbidden] = true // a cross-origin browser request (origin.go)
	}
	if len(params) > 0 || d.Req != nil || len(d.Query) > 0 {
		set[http.StatusBadRequest] = true
	}
	if d.Req != nil {
		set[http.StatusUnsupportedMediaType] = true
	}
	if need != auth.AccessPublic {
		set[http.StatusUnauthorized] = true
		// 403: a role some users lack, or a stream outside the user's
		// auth.users[].streams. Every user has some role, so a route open to
		// any role that names no stream never answers 403.
		if need != auth.AccessProtocol || slices.Contains(params, "streamPrefix") {
			set[http.StatusForbidden] = true
		}
	}
	if limited {
		set[http.StatusTooManyRequests] = true
	}
	for _, e := range d.Errs {
		set[coordinator.AnswerFor(e).Status] = true
	}
	for _, s := range d.Extra {
		set[s] = true
	}
	if d.Service {
		set[http.StatusInternalServerError] = true
		set[http.StatusServiceUnavailable] = true // timeout, store unavailable, shutting down
	}
	out := make([]int, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Ints(out)
	return out
}

// requestRequired are the fields the server requires in each request body
// (validate.go, protocol.DecodeHeartbeat); the Go types' tags describe what
// responses always carry, not what requests must.
var requestRequired = map[string][]string{
	"HeartbeatRequest":    {"memberEpoch", "memberId", "metadataVersion", "protocolVersion", "requestId", "runtimeConsumerCapacity"},
	"CreateStreamRequest": {"requestedBy"},
	"CreateGroupRequest":  {"requestedBy"},
	"DeleteGroupRequest":  {"requestedBy"},
	"DeleteStreamRequest": {"requestedBy"},
	"ScaleRequest":        {"requestedBy", "targetShardCount"},
	"RollbackRequest":     {"requestedBy"},
	"RebalancingRequest":  {"paused", "requestedBy"},
	"LoginRequest":        {"password", "username"},
	"RevokeTokensRequest": {"requestedBy"},
}

func paramDescription(name string) string {
	switch name {
	case "streamPrefix":
		return "stream prefix, URL-escaped (non-blank UTF-8, no control characters, no braces)"
	case "consumerGroup":
		return "consumer group name, URL-escaped"
	case "memberId":
		return "member id, URL-escaped; must equal the body's memberId"
	case "reshardingId":
		return "migration id"
	case "shardIndex":
		return "shard index, 0 ≤ shardIndex < shardCount"
	}
	return name
}

// openapiStatus is a status as a responses key.
func openapiStatus(st int) string { return strconv.Itoa(st) }
