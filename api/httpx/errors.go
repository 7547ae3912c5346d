package httpx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// This file is the only place where errors become HTTP statuses. The Err*
// Sentinels are the Service's (coordinator/errors.go).
//
//	ErrInvalidArgument                                  400 INVALID_ARGUMENT
//	ErrStreamNotFound / ErrGroupNotFound /
//	  ErrMigrationNotFound                              404 STREAM_NOT_FOUND / GROUP_NOT_FOUND / MIGRATION_NOT_FOUND
//	ErrShardNotFound                                    404 SHARD_NOT_FOUND
//	ErrShardKeyNotStream                                409 SHARD_KEY_NOT_A_STREAM
//	ErrStreamExists                                     409 STREAM_PREFIX_ALREADY_EXISTS
//	ErrGroupExists                                      409 GROUP_ALREADY_EXISTS
//	ErrLimitExceeded                                    429 LIMIT_EXCEEDED (message names the limits.* key; no Retry-After:
//	                                                        retrying helps only once the state shrinks or the limit is raised)
//	ErrMigrationActive                                  409 ACTIVE_MIGRATION_EXISTS
//	ErrGroupHasMembers                                  409 GROUP_HAS_ACTIVE_MEMBERS
//	ErrStreamNotEmpty                                   409 STREAM_NOT_EMPTY
//	ErrStateConflict                                    409 STATE_VERSION_CONFLICT
//	ErrRollbackNotAllowed                               422 ROLLBACK_NOT_ALLOWED
//	ErrMemberOwnedByAnotherPrincipal                    403 MEMBER_OWNED_BY_ANOTHER_PRINCIPAL
//	ErrUnavailable                                      503 STORE_UNAVAILABLE, Retry-After: 1
//	ErrGroupMoving                                      503 GROUP_MOVING, Retry-After: 1
//	context deadline / cancel                           503 TIMEOUT, Retry-After: 1
//	anything else                                       500 INTERNAL, generic message (detail logged)
//
// 4xx messages carry the error text (written by the coordinator,
// meant for the caller); 500 and 503 messages are generic and the detail goes
// to the log only.

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

// statusNames are the upper-snake reasons used in ErrorBody.Status.
var statusNames = map[int]string{
	400: "BAD_REQUEST",
	401: "UNAUTHORIZED",
	403: "FORBIDDEN",
	404: "NOT_FOUND",
	405: "METHOD_NOT_ALLOWED",
	408: "REQUEST_TIMEOUT",
	409: "CONFLICT",
	413: "PAYLOAD_TOO_LARGE",
	415: "UNSUPPORTED_MEDIA_TYPE",
	422: "UNPROCESSABLE_ENTITY",
	429: "TOO_MANY_REQUESTS",
	431: "REQUEST_HEADER_FIELDS_TOO_LARGE",
	500: "INTERNAL_SERVER_ERROR",
	503: "SERVICE_UNAVAILABLE",
}

// statusName is the ErrorBody.Status for an HTTP status code.
func StatusName(code int) string {
	if n, ok := statusNames[code]; ok {
		return n
	}
	return "HTTP_" + strconv.Itoa(code)
}

// sentinel maps one Service error to its answer.
type Sentinel struct {
	Err    error
	Status int
	Code   string
}

var Sentinels = []Sentinel{
	{coordinator.ErrInvalidArgument, http.StatusBadRequest, protocol.CodeInvalidArgument},
	{coordinator.ErrStreamNotFound, http.StatusNotFound, protocol.CodeStreamNotFound},
	{coordinator.ErrGroupNotFound, http.StatusNotFound, protocol.CodeGroupNotFound},
	{coordinator.ErrMigrationNotFound, http.StatusNotFound, protocol.CodeMigrationNotFound},
	{coordinator.ErrShardNotFound, http.StatusNotFound, protocol.CodeShardNotFound},
	{coordinator.ErrShardKeyNotStream, http.StatusConflict, protocol.CodeWrongKeyType},
	{coordinator.ErrStreamExists, http.StatusConflict, protocol.CodeStreamExists},
	{coordinator.ErrGroupExists, http.StatusConflict, protocol.CodeGroupExists},
	{coordinator.ErrLimitExceeded, http.StatusTooManyRequests, protocol.CodeLimitExceeded},
	{coordinator.ErrMigrationActive, http.StatusConflict, protocol.CodeMigrationActive},
	{coordinator.ErrGroupHasMembers, http.StatusConflict, protocol.CodeGroupHasMembers},
	{coordinator.ErrStreamNotEmpty, http.StatusConflict, protocol.CodeStreamNotEmpty},
	{coordinator.ErrStateConflict, http.StatusConflict, protocol.CodeStateConflict},
	{coordinator.ErrRollbackNotAllowed, http.StatusUnprocessableEntity, protocol.CodeRollbackNotAllowed},
	{coordinator.ErrMemberOwnedByAnotherPrincipal, http.StatusForbidden, protocol.CodeMemberOwnedByAnotherPrincipal},
}

// toHTTPError turns any error into its HTTP answer. internal reports whether
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
	for _, s := range Sentinels {
		if errors.Is(err, s.Err) {
			return New(s.Status, s.Code, err.Error()), false
		}
	}
	switch {
	case errors.Is(err, coordinator.ErrUnavailable):
		return &Error{Status: 503, Code: protocol.CodeStoreUnavailable, Msg: "the coordinator store is unavailable; retry", RetryAfter: 1}, true
	case errors.Is(err, coordinator.ErrGroupMoving):
		return &Error{Status: 503, Code: protocol.CodeGroupMoving, Msg: "the group is moving between coordinator nodes; retry", RetryAfter: 1}, true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &Error{Status: 503, Code: protocol.CodeTimeout, Msg: "the coordinator did not answer in time; retry", RetryAfter: 1}, true
	}
	return New(http.StatusInternalServerError, protocol.CodeInternal, "internal error"), true
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
