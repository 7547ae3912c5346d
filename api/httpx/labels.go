package httpx

import "github.com/gofiber/fiber/v2"

// Unmatched is the route label of a request no route matched.
const Unmatched = "unmatched"

// RouteLabel is the matched route pattern, or "unmatched".
func RouteLabel(c *fiber.Ctx) string {
	r := c.Route()
	if r == nil || r.Path == "/" || r.Path == "" {
		return Unmatched
	}
	return r.Path
}

// MethodLabel is the request method as a constant string: fiber's strings
// alias buffers that are reused after the request, and metric labels live on.
func MethodLabel(c *fiber.Ctx) string {
	switch m := c.Method(); m {
	case fiber.MethodGet:
		return fiber.MethodGet
	case fiber.MethodPost:
		return fiber.MethodPost
	case fiber.MethodPut:
		return fiber.MethodPut
	case fiber.MethodDelete:
		return fiber.MethodDelete
	case fiber.MethodPatch:
		return fiber.MethodPatch
	case fiber.MethodHead:
		return fiber.MethodHead
	case fiber.MethodOptions:
		return fiber.MethodOptions
	}
	return "OTHER"
}
