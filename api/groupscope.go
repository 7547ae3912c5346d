package api

import "github.com/gofiber/fiber/v2"

// Group scopes (auth.users[].groups): a user with groups configured may use
// only routes whose :consumerGroup is one of them ("billing" exactly, or
// "billing-*" for every group starting with "billing-"), the same pattern
// rules as auth.users[].streams. A MEMBER user scoped to groups heartbeats
// and leaves only in those groups; everything else that names a group
// answers 403. Routes that name no group are not limited by it. Empty or "*"
// = every group.
func groupAllowed(scope streamScope, c *fiber.Ctx) bool {
	if scope == nil || c.Params("consumerGroup") == "" {
		return true
	}
	g, err := unescape(c, "consumerGroup", "consumerGroup")
	if err != nil {
		return true // the handler answers 400
	}
	return scope.allows(g)
}
