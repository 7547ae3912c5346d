package protocol

// ErrorBody is the body of every non-2xx response (SPEC §4):
// {"status":"CONFLICT","errorCode":"GROUP_ALREADY_EXISTS","message":"…"}.
type ErrorBody struct {
	Status    string `json:"status"`
	ErrorCode string `json:"errorCode"`
	Message   string `json:"message"`
}

// Error codes used in ErrorBody.ErrorCode. Where the reference coordinator
// names a condition, its code is the one answered, so that automation
// written against it keeps working; docs/PROTOCOL.md lists our former codes
// as aliases.
const (
	CodeMalformedRequest   = "MALFORMED_REQUEST"
	CodeInvalidArgument    = "INVALID_ARGUMENT"
	CodePayloadTooLarge    = "PAYLOAD_TOO_LARGE"
	CodeUnauthenticated    = "UNAUTHENTICATED"
	CodeForbidden          = "FORBIDDEN"
	CodeStreamNotFound     = "STREAM_NOT_FOUND"
	CodeGroupNotFound      = "GROUP_NOT_FOUND"
	CodeMigrationNotFound  = "MIGRATION_NOT_FOUND"
	CodeShardNotFound      = "SHARD_NOT_FOUND"
	CodeStreamExists       = "STREAM_PREFIX_ALREADY_EXISTS" // the reference's code; ours was STREAM_ALREADY_EXISTS
	CodeGroupExists        = "GROUP_ALREADY_EXISTS"
	CodeGroupHasMembers    = "GROUP_HAS_ACTIVE_MEMBERS" // the reference's code (409); ours was GROUP_HAS_LIVE_MEMBERS (422)
	CodeMigrationActive    = "ACTIVE_MIGRATION_EXISTS"  // the reference's code; ours was MIGRATION_ALREADY_ACTIVE
	CodeRollbackNotAllowed = "ROLLBACK_NOT_ALLOWED"
	CodeStoreUnavailable   = "STORE_UNAVAILABLE"
	CodeGroupMoving        = "GROUP_MOVING"
	CodeRateLimited        = "RATE_LIMIT_EXCEEDED"    // the reference's code; ours was RATE_LIMITED
	CodeStateConflict      = "STATE_VERSION_CONFLICT" // state changed concurrently; retry (409)
	CodeStreamNotEmpty     = "STREAM_NOT_EMPTY"       // a stream delete while shards, a migration or groups are left (409)
	CodeLimitExceeded      = "LIMIT_EXCEEDED"         // a configured limits.* bound; the message names the key
	CodeNotFound           = "NOT_FOUND"
	CodeMethodNotAllowed   = "METHOD_NOT_ALLOWED"
	CodeInternal           = "INTERNAL"
	// CodeMemberOwnedByAnotherPrincipal: a heartbeat or leave for a member id
	// that another principal joined (403); nothing changed.
	CodeMemberOwnedByAnotherPrincipal = "MEMBER_OWNED_BY_ANOTHER_PRINCIPAL"
)
