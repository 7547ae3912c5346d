package auth

import (
	"net/http"

	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Stream and group scopes on routes that name no stream, or no group
// (scope.go and groupscope.go cover the routes that do). A user scoped to
// some streams (auth.users[].streams) or some groups (auth.users[].groups):
//
//	GET /coord/v1/monitoring/groups   lists only the groups in its scopes
//	GET /coord/v1/streams             lists only its streams
//	GET /coord/v1/streams/{p}         lists only its groups of the stream
//	GET /debug/actors, GET /metrics,  403 FORBIDDEN: they show every stream and group of the
//	GET /coord/v1/monitoring/cluster  node, and are for operators (unscoped users); a scoped
//	                                  user reads /debug/streams/{p}/groups/{g} instead
//
// With auth off, or for an unscoped user, nothing is filtered.

// requestScope is the stream and group scope of the request's principal
// (nil: every stream, every group).
func RequestScope(c *fiber.Ctx) (streams, groups streamScope) {
	if p, ok := c.Locals(PrincipalKey).(Principal); ok {
		return p.streams, p.groups
	}
	return nil, nil
}

// scopedGroups keeps the groups whose stream and name the scopes allow.
func ScopedGroups(streams, groupScope streamScope, groups []protocol.GroupResponse) []protocol.GroupResponse {
	if streams == nil && groupScope == nil {
		return groups
	}
	out := groups[:0]
	for _, g := range groups {
		if streams.allows(g.StreamPrefix) && groupScope.allows(g.ConsumerGroup) {
			out = append(out, g)
		}
	}
	return out
}

// scopedGroupNames keeps the group names the group scope allows.
func ScopedGroupNames(groupScope streamScope, names []string) []string {
	if groupScope == nil {
		return names
	}
	out := names[:0]
	for _, g := range names {
		if groupScope.allows(g) {
			out = append(out, g)
		}
	}
	return out
}

// scopedStreams keeps the streams the scope allows.
func ScopedStreams(scope streamScope, streams []protocol.StreamView) []protocol.StreamView {
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

// unscopedOnly guards a route that shows every stream and group at once.
func UnscopedOnly(what string, h fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, ok := c.Locals(PrincipalKey).(Principal)
		if !ok || (p.streams == nil && p.groups == nil) {
			return h(c)
		}
		scope := "streams " + p.streams.String() + " (auth.users[].streams)"
		if p.streams == nil {
			scope = "consumer groups " + p.groups.String() + " (auth.users[].groups)"
		}
		return httpx.New(http.StatusForbidden, protocol.CodeForbidden, what+" shows every stream and group of this node, and user "+p.name+
			" is scoped to "+scope+": ask an operator with an unscoped user, or read the per-group routes (/coord/v1/monitoring/streams/{streamPrefix}/groups/{consumerGroup}, /debug/streams/{streamPrefix}/groups/{consumerGroup})")
	}
}
