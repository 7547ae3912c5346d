package api

import (
	"bytes"
	"mime"
	"net/http"
	"strings"

	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Every route that takes a body takes JSON, and says so: a body sent with
// any Content-Type but application/json (parameters allowed; a charset, if
// given, must be utf-8) is refused with 415 UNSUPPORTED_MEDIA_TYPE before
// anything reads it. A browser form can only send text/plain,
// multipart/form-data or application/x-www-form-urlencoded without a CORS
// preflight, so no page on another site can smuggle a JSON body in a form
// field. A request without a body (login with Basic credentials, a DELETE
// without one) is not checked: there is nothing to decode.

var (
	mimeJSON     = []byte(fiber.MIMEApplicationJSON)
	mimeJSONUTF8 = []byte(fiber.MIMEApplicationJSONCharsetUTF8) // "application/json; charset=utf-8"
)

// jsonBody is the middleware of every route with a request body.
func (s *Server) jsonBody(c *fiber.Ctx) error {
	if len(c.Request().Body()) == 0 {
		return c.Next()
	}
	ct := c.Request().Header.ContentType()
	if bytes.EqualFold(ct, mimeJSON) || bytes.EqualFold(ct, mimeJSONUTF8) || isJSONMediaType(string(ct)) {
		return c.Next()
	}
	got := "no Content-Type"
	if len(ct) > 0 {
		got = "Content-Type " + httpx.Truncate(string(ct), 80)
	}
	return httpx.New(http.StatusUnsupportedMediaType, protocol.CodeUnsupportedMediaType,
		"the request body has "+got+": this route takes a JSON body; send it with Content-Type: application/json")
}

// isJSONMediaType parses a Content-Type: application/json with any
// parameters, charset utf-8 if one is given.
func isJSONMediaType(ct string) bool {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != fiber.MIMEApplicationJSON {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8") || strings.EqualFold(cs, "utf8")
}
