package auth

import (
	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/edge"
	"github.com/redisstream/coordinator/authz"
)

// streamScope limits a user to some stream prefixes (auth.users[].streams)
// on every route that names a stream: a team's MEMBER credential can then
// heartbeat and route only on its own streams. Routes that name no stream
// filter their lists by it, or refuse scoped users (scopefilter.go).
// nil = every stream. The patterns and the decision are authz.Scope's
// (shared with the Redis mailbox).
type streamScope authz.Scope

func newStreamScope(patterns []string) streamScope { return streamScope(authz.NewScope(patterns)) }

// allows reports whether the stream prefix is in scope (authz.Scope.Allows).
func (s streamScope) allows(prefix string) bool { return authz.Scope(s).Allows(prefix) }

// routeName is the route's decoded :key for the scope decision, or "" when
// the route has none. Routes that name no stream (lists, health, login) are
// not scoped. A name that does not decode is "" too (let through): the
// handler answers it 400.
func routeName(c *fiber.Ctx, key string) string {
	if c.Params(key) == "" {
		return ""
	}
	v, err := edge.Unescape(c, key, key)
	if err != nil {
		return ""
	}
	return v
}

func (s streamScope) String() string { return authz.Scope(s).String() }
