package auth

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/edge"
)

// streamScope limits a user to some stream prefixes (auth.users[].streams)
// on every route that names a stream: a team's MEMBER credential can then
// heartbeat and route only on its own streams. Routes that name no stream
// filter their lists by it, or refuse scoped users (scopefilter.go).
// nil = every stream.
type streamScope []string

func newStreamScope(patterns []string) streamScope {
	var s streamScope
	for _, p := range patterns {
		if p == "*" {
			return nil
		}
		s = append(s, p)
	}
	return s
}

// allows reports whether the stream prefix is in scope: equal to a pattern,
// or starting with a pattern's text before its trailing '*'.
func (s streamScope) allows(prefix string) bool {
	if s == nil {
		return true
	}
	for _, p := range s {
		if head, wild := strings.CutSuffix(p, "*"); wild {
			if strings.HasPrefix(prefix, head) {
				return true
			}
		} else if p == prefix {
			return true
		}
	}
	return false
}

// allowsRoute checks the route's :streamPrefix, if it has one. Routes that
// name no stream (lists, health, login) are not scoped. A prefix that does
// not decode is let through: the handler answers it 400.
func (s streamScope) allowsRoute(c *fiber.Ctx) bool {
	if s == nil || c.Params("streamPrefix") == "" {
		return true
	}
	prefix, err := edge.Unescape(c, "streamPrefix", "streamPrefix")
	if err != nil {
		return true
	}
	return s.allows(prefix)
}

func (s streamScope) String() string { return "[" + strings.Join(s, ", ") + "]" }
