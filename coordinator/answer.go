package coordinator

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Answer is how every transport answers a Service error: the HTTP status
// and protocol error code of SPEC §4 (the Redis mailbox sends the same
// status and error body in its reply), the message for the caller, the
// seconds to wait before a retry (0 = none), and whether the detail is for
// the log only (the caller gets a generic message).
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
type Answer struct {
	Status     int
	Code       string
	Message    string
	RetryAfter int
	Internal   bool
}

// Body is the SPEC error body of the answer.
func (a Answer) Body() protocol.ErrorBody {
	return protocol.ErrorBody{Status: StatusName(a.Status), ErrorCode: a.Code, Message: a.Message}
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

// StatusName is the ErrorBody.Status for an HTTP status code.
func StatusName(code int) string {
	if n, ok := statusNames[code]; ok {
		return n
	}
	return "HTTP_" + strconv.Itoa(code)
}

// sentinel maps one Service error to its answer.
type sentinel struct {
	err    error
	status int
	code   string
}

var sentinels = []sentinel{
	{ErrInvalidArgument, http.StatusBadRequest, protocol.CodeInvalidArgument},
	{ErrStreamNotFound, http.StatusNotFound, protocol.CodeStreamNotFound},
	{ErrGroupNotFound, http.StatusNotFound, protocol.CodeGroupNotFound},
	{ErrMigrationNotFound, http.StatusNotFound, protocol.CodeMigrationNotFound},
	{ErrShardNotFound, http.StatusNotFound, protocol.CodeShardNotFound},
	{ErrShardKeyNotStream, http.StatusConflict, protocol.CodeWrongKeyType},
	{ErrStreamExists, http.StatusConflict, protocol.CodeStreamExists},
	{ErrGroupExists, http.StatusConflict, protocol.CodeGroupExists},
	{ErrLimitExceeded, http.StatusTooManyRequests, protocol.CodeLimitExceeded},
	{ErrMigrationActive, http.StatusConflict, protocol.CodeMigrationActive},
	{ErrGroupHasMembers, http.StatusConflict, protocol.CodeGroupHasMembers},
	{ErrStreamNotEmpty, http.StatusConflict, protocol.CodeStreamNotEmpty},
	{ErrStateConflict, http.StatusConflict, protocol.CodeStateConflict},
	{ErrRollbackNotAllowed, http.StatusUnprocessableEntity, protocol.CodeRollbackNotAllowed},
	{ErrMemberOwnedByAnotherPrincipal, http.StatusForbidden, protocol.CodeMemberOwnedByAnotherPrincipal},
}

// AnswerFor maps a Service error (or a context that ran out) to its answer.
// 4xx messages carry the error text (written by the coordinator, meant for
// the caller); 500 and 503 messages are generic, Internal set.
func AnswerFor(err error) Answer {
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return Answer{Status: s.status, Code: s.code, Message: err.Error()}
		}
	}
	switch {
	case errors.Is(err, ErrUnavailable):
		return Answer{Status: 503, Code: protocol.CodeStoreUnavailable, Message: "the coordinator store is unavailable; retry", RetryAfter: 1, Internal: true}
	case errors.Is(err, ErrGroupMoving):
		return Answer{Status: 503, Code: protocol.CodeGroupMoving, Message: "the group is moving between coordinator nodes; retry", RetryAfter: 1, Internal: true}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return Answer{Status: 503, Code: protocol.CodeTimeout, Message: "the coordinator did not answer in time; retry", RetryAfter: 1, Internal: true}
	}
	return Answer{Status: http.StatusInternalServerError, Code: protocol.CodeInternal, Message: "internal error", Internal: true}
}
