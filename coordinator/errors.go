package coordinator

import "errors"

// Errors the Service returns, wrapped with context; transports map them to
// their own answers (api/errors.go: HTTP statuses and error codes).
var (
	ErrStreamNotFound     = errors.New("coordinator: stream not found")
	ErrGroupNotFound      = errors.New("coordinator: group not found")
	ErrMigrationNotFound  = errors.New("coordinator: migration not found")
	ErrShardNotFound      = errors.New("coordinator: shard not found")
	ErrStreamExists       = errors.New("coordinator: stream already exists")
	ErrGroupHasMembers    = errors.New("coordinator: group has live members")
	ErrStreamNotEmpty     = errors.New("coordinator: stream is not empty")
	ErrStateConflict      = errors.New("coordinator: state changed concurrently; retry")
	ErrMigrationActive    = errors.New("coordinator: a migration is already active")
	ErrRollbackNotAllowed = errors.New("coordinator: rollback no longer allowed")
	ErrInvalidArgument    = errors.New("coordinator: invalid argument")
	ErrUnavailable        = errors.New("coordinator: store unavailable")
	ErrGroupMoving        = errors.New("coordinator: group is moving between nodes")
)

// Errors of group creation and limits.
var (
	ErrGroupExists = errors.New("coordinator: group already exists")
	// ErrLimitExceeded: a configured limit (limits.*) refuses the request;
	// the wrapping message names the limit's config key.
	ErrLimitExceeded = errors.New("coordinator: limit exceeded")
	// ErrShardKeyNotStream: a shard's Redis key holds something other than
	// a stream (written by hand); 409, nothing is read.
	ErrShardKeyNotStream = errors.New("coordinator: shard key holds no stream")
)

// ErrMemberOwnedByAnotherPrincipal: a heartbeat or leave for a member id that
// another principal joined; the Service changed nothing (no fence, no epoch
// move, no lease effect).
var ErrMemberOwnedByAnotherPrincipal = errors.New("coordinator: member is owned by another principal")
