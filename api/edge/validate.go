package edge

import (
	"strings"

	"github.com/redisstream/coordinator/api/httpx"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Checks on decoded bodies, made before the Service is called. The decoders
// (protocol.DecodeHeartbeat, DecodeJSON) already refuse bad JSON, wrong
// types, missing required heartbeat fields and oversized lists.

const (
	MaxRequestedBy = 200
	MaxReason      = 1024
	MaxCredential  = 1024
)

// checkRequestedBy requires a non-blank requestedBy without control characters.
func RequestedBy(s string) error {
	if strings.TrimSpace(s) == "" {
		return httpx.Invalid("requestedBy is required")
	}
	return Text("requestedBy", s, MaxRequestedBy, false)
}

// checkText bounds a free-text field and refuses control characters
// (line breaks and tabs too, unless multiline).
func Text(field, s string, max int, multiline bool) error {
	if len(s) > max {
		return httpx.Invalid("%s is %d bytes, the limit is %d", field, len(s), max)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			if multiline && (r == '\n' || r == '\t') {
				continue
			}
			return httpx.Invalid("%s contains a control character", field)
		}
	}
	return nil
}

func CreateStream(r protocol.CreateStreamRequest, maxShardCount int) error {
	if r.InitialShardCount != nil && (*r.InitialShardCount < 1 || *r.InitialShardCount > maxShardCount) {
		return httpx.Invalid("initialShardCount %d is out of range 1..%d", *r.InitialShardCount, maxShardCount)
	}
	if err := RequestedBy(r.RequestedBy); err != nil {
		return err
	}
	return Text("reason", r.Reason, MaxReason, true)
}

func CreateGroup(r protocol.CreateGroupRequest) error {
	if err := RequestedBy(r.RequestedBy); err != nil {
		return err
	}
	if r.Assignment != "" {
		if err := Assignment(r.Assignment); err != nil {
			return err
		}
	}
	return Text("reason", r.Reason, MaxReason, true)
}

// SetAssignment checks the body of POST …/groups/{g}/assignment.
func SetAssignment(r protocol.SetAssignmentRequest) error {
	if err := Assignment(r.Assignment); err != nil {
		return err
	}
	if err := RequestedBy(r.RequestedBy); err != nil {
		return err
	}
	return Text("reason", r.Reason, MaxReason, true)
}

// Assignment checks a group's assignment mode.
func Assignment(mode string) error {
	switch mode {
	case protocol.AssignmentUniform, protocol.AssignmentCapacity:
		return nil
	case "":
		return httpx.Invalid(`assignment is required: send {"assignment": "uniform"} or {"assignment": "capacity"}`)
	}
	return httpx.Invalid(`assignment %q is not a mode: send "uniform" (every member the same number of shards) or "capacity" (shares in proportion to each member's runtimeMaxConcurrency)`, mode)
}

func DeleteGroup(r protocol.DeleteGroupRequest) error {
	if err := RequestedBy(r.RequestedBy); err != nil {
		return err
	}
	return Text("reason", r.Reason, MaxReason, true)
}

func Scale(r protocol.ScaleRequest, maxShardCount int) error {
	if r.TargetShardCount == nil {
		return httpx.Invalid("targetShardCount is required")
	}
	if *r.TargetShardCount < 0 || *r.TargetShardCount > maxShardCount {
		return httpx.Invalid("targetShardCount %d is out of range 0..%d", *r.TargetShardCount, maxShardCount)
	}
	if err := RequestedBy(r.RequestedBy); err != nil {
		return err
	}
	return Text("reason", r.Reason, MaxReason, true)
}

func Rollback(r protocol.RollbackRequest) error {
	if err := RequestedBy(r.RequestedBy); err != nil {
		return err
	}
	return Text("reason", r.Reason, MaxReason, true)
}

func Login(r protocol.LoginRequest) error {
	if r.Username == "" || r.Password == "" {
		return httpx.Invalid("username and password are required")
	}
	if len(r.Username) > MaxCredential || len(r.Password) > MaxCredential {
		return httpx.Invalid("username or password is longer than %d bytes", MaxCredential)
	}
	return nil
}

// checkHeartbeat refuses, with 400 INVALID_ARGUMENT, v1 heartbeats that no
// group state could make valid: coordinator.CheckHeartbeat, the check every
// transport shares (the Redis mailbox too).
func Heartbeat(r *protocol.HeartbeatRequest) error {
	if err := coordinator.CheckHeartbeat(r); err != nil {
		return httpx.Invalid("%s", err.Error())
	}
	return nil
}
