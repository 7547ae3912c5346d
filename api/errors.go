package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// This file turns errors into HTTP answers. The Service's sentinels
// (coordinator/errors.go) map through coordinator.AnswerFor, the table every
// transport shares (the Redis mailbox replies with the same statuses and
// bodies); errors raised here (httpError) and by fiber map here.

// httpError is an error that already knows its HTTP answer.
type httpError struct {
	status     int
	code       string
	msg        string
	retryAfter int // seconds; 0 = no Retry-After header
}

func (e *httpError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.msg) }

func newError(status int, code, msg string) *httpError {
	return &httpError{status: status, code: code, msg: msg}
}

func invalidArgument(format string, args ...any) *httpError {
	return newError(http.StatusBadRequest, protocol.CodeInvalidArgument, fmt.Sprintf(format, args...))
}

func malformed(err error) *httpError {
	msg := err.Error()
	if p := protocol.ErrMalformed.Error() + ": "; len(msg) > len(p) && msg[:len(p)] == p {
		msg = msg[len(p):]
	}
	return newError(http.StatusBadRequest, protocol.CodeMalformedRequest, msg)
}

// statusName is the ErrorBody.Status for an HTTP status code.
func statusName(code int) string { return coordinator.StatusName(code) }

// toHTTPError turns any error into its HTTP answer. internal reports whether
// the detail must be logged because the caller only sees a generic message.
func toHTTPError(err error) (e *httpError, internal bool) {
	var he *httpError
	if errors.As(err, &he) {
		return he, false
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		return fromFiberError(fe), fe.Code >= 500
	}
	a := coordinator.AnswerFor(err)
	return &httpError{status: a.Status, code: a.Code, msg: a.Message, retryAfter: a.RetryAfter}, a.Internal
}

// fromFiberError maps errors raised by fiber/fasthttp before or around our
// handlers (routing, body limit, header size).
func fromFiberError(fe *fiber.Error) *httpError {
	switch fe.Code {
	case http.StatusNotFound:
		return newError(fe.Code, protocol.CodeNotFound, truncate(fe.Message, 300))
	case http.StatusMethodNotAllowed:
		return newError(fe.Code, protocol.CodeMethodNotAllowed, "method not allowed on this route")
	case http.StatusRequestEntityTooLarge:
		// SPEC §4: oversized bodies are HTTP 400 (the reference clients
		// treat every 400 alike); the error code tells them apart.
		return newError(http.StatusBadRequest, protocol.CodePayloadTooLarge, "request body is larger than the server's body limit (http.body-limit)")
	case http.StatusRequestHeaderFieldsTooLarge:
		return newError(fe.Code, protocol.CodeHeadersTooLarge, "request headers are too large")
	}
	if fe.Code >= 500 {
		return newError(http.StatusInternalServerError, protocol.CodeInternal, "internal error")
	}
	return newError(fe.Code, protocol.CodeBadRequest, truncate(fe.Message, 300))
}

// writeError sends the SPEC error body for err. Server-side detail is logged,
// never sent.
func (s *Server) writeError(c *fiber.Ctx, err error) {
	he, internal := toHTTPError(err)
	if internal {
		s.log.Error("request failed", "method", c.Method(), "route", routeLabel(c), "status", he.status, "requestId", requestID(c), "error", err)
	}
	if he.retryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(he.retryAfter))
	}
	// Scripts that say so (the web console) get no Basic challenge: a browser
	// would answer it with its own login dialog instead of the page's form.
	if he.status == http.StatusUnauthorized && c.Get(fiber.HeaderXRequestedWith) != "XMLHttpRequest" {
		c.Set(fiber.HeaderWWWAuthenticate, `Basic realm="rsc"`)
	}
	if jerr := c.Status(he.status).JSON(protocol.ErrorBody{Status: statusName(he.status), ErrorCode: he.code, Message: he.msg}); jerr != nil {
		s.log.Error("writing error body failed", "error", jerr)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
