package auth

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/httpx"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Group scopes (auth.users[].groups): a user with groups configured may use
// only routes whose :consumerGroup is one of them ("billing" exactly, or
// "billing-*" for every group starting with "billing-"), the same pattern
// rules as auth.users[].streams. A MEMBER user scoped to groups heartbeats
// and leaves only in those groups; everything else that names a group
// answers 403. Lists filter by it (scopefilter.go), and routes that change
// a whole stream — create stream, delete stream, scale, and roll back a
// migration (a resharding moves every group of the stream) — refuse a
// group-scoped user (wholeStream): its scope covers some groups of the
// stream, not the others. Empty or "*" = every group. The decision on a
// route that names a group is authz.Principal.Check (auth.go's require).

// wholeStream guards a route that changes every group of a stream: a user
// scoped to some groups may not use it.
func WholeStream(h fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if p, ok := c.Locals(PrincipalKey).(Principal); ok && p.groups != nil {
			return httpx.New(http.StatusForbidden, protocol.CodeForbidden, "this route changes every consumer group of the stream, and user "+p.name+
				" is scoped to consumer groups "+p.groups.String()+" (auth.users[].groups): ask an operator whose user is not scoped to groups")
		}
		return h(c)
	}
}
