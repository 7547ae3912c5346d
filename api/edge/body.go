package edge

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/httpx"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// DecodeBody decodes the raw body into v with protocol.DecodeJSON (400
// MALFORMED_REQUEST on failure).
func DecodeBody(c *fiber.Ctx, v any) error {
	body, err := RequestBody(c)
	if err != nil {
		return err
	}
	if err := protocol.DecodeJSON(body, v); err != nil {
		return httpx.Malformed(err)
	}
	return nil
}

// RequestBody returns the raw request body. Compressed bodies are refused
// (415): decompressing would let a small body grow past the body limit.
func RequestBody(c *fiber.Ctx) ([]byte, error) {
	if enc := c.Get(fiber.HeaderContentEncoding); enc != "" && enc != "identity" {
		return nil, httpx.New(http.StatusUnsupportedMediaType, protocol.CodeUnsupportedEncoding, "request bodies must not use a Content-Encoding")
	}
	return c.Request().Body(), nil
}
