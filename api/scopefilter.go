package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Stream scopes on routes that name no stream (scope.go covers the routes
// that do). A user scoped to some streams (auth.users[].streams):
//
//	GET /coord/v1/monitoring/groups   lists only the groups of its streams
//	GET /coord/v1/streams             lists only its streams
//	GET /debug/actors, GET /metrics   403 FORBIDDEN: they show every stream of the node,
//	                                  and are for operators (unscoped users); a scoped
//	                                  user reads /debug/streams/{p}/groups/{g} instead
//
// With auth off, or for an unscoped user, nothing is filtered.

// requestScope is the stream scope of the request's principal (nil: every stream).
func requestScope(c *fiber.Ctx) streamScope {
	if p, ok := c.Locals(principalKey).(principal); ok {
		return p.streams
	}
	return nil
}

// scopedGroups keeps the groups whose stream the scope allows.
func scopedGroups(scope streamScope, groups []protocol.GroupResponse) []protocol.GroupResponse {
	if scope == nil {
		return groups
	}
	out := groups[:0]
	for _, g := range groups {
		if scope.allows(g.StreamPrefix) {
			out = append(out, g)
		}
	}
	return out
}

// scopedStreams keeps the streams the scope allows.
func scopedStreams(scope streamScope, streams []protocol.StreamView) []protocol.StreamView {
	if scope == nil {
		return streams
	}
	out := streams[:0]
	for _, v := range streams {
		if scope.allows(v.StreamPrefix) {
			out = append(out, v)
		}
	}
	return out
}

// unscopedOnly guards a route that shows every stream at once.
func unscopedOnly(what string, h fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if p, ok := c.Locals(principalKey).(principal); ok && p.streams != nil {
			return newError(http.StatusForbidden, protocol.CodeForbidden, what+" shows every stream of this node, and user "+p.name+
				" is scoped to streams "+p.streams.String()+" (auth.users[].streams): ask an operator with an unscoped user, or read the per-group routes (/coord/v1/monitoring/streams/{streamPrefix}/groups/{consumerGroup}, /debug/streams/{streamPrefix}/groups/{consumerGroup})")
		}
		return h(c)
	}
}
