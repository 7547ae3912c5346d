package httpx

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
// bodies); errors raised here (Error) and by fiber map here.

// Error is an error that already knows its HTTP answer.
type Error struct {
	Status     int
	Code       string
	Msg        string
	RetryAfter int // seconds; 0 = no Retry-After header
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Msg) }

func New(status int, code, msg string) *Error {
	return &Error{Status: status, Code: code, Msg: msg}
}

func Invalid(format string, args ...any) *Error {
	return New(http.StatusBadRequest, protocol.CodeInvalidArgument, fmt.Sprintf(format, args...))
}

func Malformed(err error) *Error {
	msg := err.Error()
	if p := protocol.ErrMalformed.Error() + ": "; len(msg) > len(p) && msg[:len(p)] == p {
		msg = msg[len(p):]
	}
	return New(http.StatusBadRequest, protocol.CodeMalformedRequest, msg)
}

// StatusName is the ErrorBody.Status for an HTTP status code.
func StatusName(code int) string { return coordinator.StatusName(code) }

// FromError turns any error into its HTTP answer. internal reports whether
// the detail must be logged because the caller only sees a generic message.
func FromError(err error) (e *Error, internal bool) {
	var he *Error
	if errors.As(err, &he) {
		return he, false
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		return fromFiberError(fe), fe.Code >= 500
	}
	a := coordinator.AnswerFor(err)
	return &Error{Status: a.Status, Code: a.Code, Msg: a.Message, RetryAfter: a.RetryAfter}, a.Internal
}

// fromFiberError maps errors raised by fiber/fasthttp before or around our
// handlers (routing, body limit, header size).
func fromFiberError(fe *fiber.Error) *Error {
	switch fe.Code {
	case http.StatusNotFound:
		return New(fe.Code, protocol.CodeNotFound, Truncate(fe.Message, 300))
	case http.StatusMethodNotAllowed:
		return New(fe.Code, protocol.CodeMethodNotAllowed, "method not allowed on this route")
	case http.StatusRequestEntityTooLarge:
		// SPEC §4: oversized bodies are HTTP 400 (the reference clients
		// treat every 400 alike); the error code tells them apart.
		return New(http.StatusBadRequest, protocol.CodePayloadTooLarge, "request body is larger than the server's body limit (http.body-limit)")
	case http.StatusRequestHeaderFieldsTooLarge:
		return New(fe.Code, protocol.CodeHeadersTooLarge, "request headers are too large")
	}
	if fe.Code >= 500 {
		return New(http.StatusInternalServerError, protocol.CodeInternal, "internal error")
	}
	return New(fe.Code, protocol.CodeBadRequest, Truncate(fe.Message, 300))
}

// Write answers err: its status, Retry-After when it has one, a Basic
// challenge on 401 (except to XMLHttpRequest callers), and the
// {status, errorCode, message} body. internal reports a failure whose
// detail the caller should log (the answer is generic); writeErr is an
// error writing the body.
func Write(c *fiber.Ctx, err error) (he *Error, internal bool, writeErr error) {
	he, internal = FromError(err)
	if he.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(he.RetryAfter))
	}
	// Scripts that say so (the web console) get no Basic challenge: a browser
	// would answer it with its own login dialog instead of the page's form.
	if he.Status == http.StatusUnauthorized && c.Get(fiber.HeaderXRequestedWith) != "XMLHttpRequest" {
		c.Set(fiber.HeaderWWWAuthenticate, `Basic realm="rsc"`)
	}
	return he, internal, c.Status(he.Status).JSON(protocol.ErrorBody{Status: StatusName(he.Status), ErrorCode: he.Code, Message: he.Msg})
}

func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
