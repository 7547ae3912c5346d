package group

import (
	"github.com/redisstream/coordinator/actors/group/refusals"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Identity refusals are logged and counted once per conflict by the actor's refusals.Log
// (group/refusals); the principal refusal reaches the front as ErrOwnedByAnotherPrincipal.

// ErrOwnedByAnotherPrincipal: a heartbeat or leave for a member id another principal joined;
// nothing changed. Refusal returns it wrapped with the rules' message (refusals.Of).
var ErrOwnedByAnotherPrincipal = refusals.ErrOwnedByAnotherPrincipal

// Refusal returns the error a group's answer stands for, nil for a protocol outcome that is
// sent to the member as it is (refusals.Of).
func Refusal(resp protocol.HeartbeatResponse) error { return refusals.Of(resp) }
