package openapi

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"
)

// committed is the committed OpenAPI 3.1 document of every route.
//
//go:embed openapi.json
var committed []byte

// docsHTML is the offline viewer served at /docs: one self-contained page
// (no external scripts, styles or fonts) that fetches the document from
// /coord/v1/openapi.json and renders it.
//
//go:embed docsui/index.html
var docsHTML []byte

// Committed returns the committed (embedded) document.
func Committed() []byte { return committed }

// Serve: GET /coord/v1/openapi.json, public.
func Serve(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "no-cache")
	return c.Send(committed)
}

// DocsPage: GET /docs, public. The page runs no code from elsewhere and
// cannot be framed: the Content-Security-Policy (docscsp.go) allows only
// its own script and style, by hash, and same-origin fetches.
func DocsPage(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderContentSecurityPolicy, docsPolicy)
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	return c.Send(docsHTML)
}
