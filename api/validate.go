package api

import (
	"strings"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Checks on decoded bodies, made before the Service is called. The decoders
// (protocol.DecodeHeartbeat, DecodeJSON) already refuse bad JSON, wrong
// types, missing required heartbeat fields and oversized lists.

const (
	maxRequestedBy = 200
	maxReason      = 1024
	maxCredential  = 1024
)

// checkRequestedBy requires a non-blank requestedBy without control characters.
func checkRequestedBy(s string) error {
	if strings.TrimSpace(s) == "" {
		return invalidArgument("requestedBy is required")
	}
	return checkText("requestedBy", s, maxRequestedBy, false)
}

// checkText bounds a free-text field and refuses control characters
// (line breaks and tabs too, unless multiline).
func checkText(field, s string, max int, multiline bool) error {
	if len(s) > max {
		return invalidArgument("%s is %d bytes, the limit is %d", field, len(s), max)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			if multiline && (r == '\n' || r == '\t') {
				continue
			}
			return invalidArgument("%s contains a control character", field)
		}
	}
	return nil
}

func (s *Server) checkCreateStream(r protocol.CreateStreamRequest) error {
	if r.InitialShardCount != nil && (*r.InitialShardCount < 1 || *r.InitialShardCount > s.cfg.MaxShardCount) {
		return invalidArgument("initialShardCount %d is out of range 1..%d", *r.InitialShardCount, s.cfg.MaxShardCount)
	}
	if err := checkRequestedBy(r.RequestedBy); err != nil {
		return err
	}
	return checkText("reason", r.Reason, maxReason, true)
}

func checkCreateGroup(r protocol.CreateGroupRequest) error {
	if err := checkRequestedBy(r.RequestedBy); err != nil {
		return err
	}
	return checkText("reason", r.Reason, maxReason, true)
}

func checkDeleteGroup(r protocol.DeleteGroupRequest) error {
	if err := checkRequestedBy(r.RequestedBy); err != nil {
		return err
	}
	return checkText("reason", r.Reason, maxReason, true)
}

func (s *Server) checkScale(r protocol.ScaleRequest) error {
	if r.TargetShardCount == nil {
		return invalidArgument("targetShardCount is required")
	}
	if *r.TargetShardCount < 0 || *r.TargetShardCount > s.cfg.MaxShardCount {
		return invalidArgument("targetShardCount %d is out of range 0..%d", *r.TargetShardCount, s.cfg.MaxShardCount)
	}
	if err := checkRequestedBy(r.RequestedBy); err != nil {
		return err
	}
	return checkText("reason", r.Reason, maxReason, true)
}

func checkRollback(r protocol.RollbackRequest) error {
	if err := checkRequestedBy(r.RequestedBy); err != nil {
		return err
	}
	return checkText("reason", r.Reason, maxReason, true)
}

func checkLogin(r protocol.LoginRequest) error {
	if r.Username == "" || r.Password == "" {
		return invalidArgument("username and password are required")
	}
	if len(r.Username) > maxCredential || len(r.Password) > maxCredential {
		return invalidArgument("username or password is longer than %d bytes", maxCredential)
	}
	return nil
}

// checkHeartbeat refuses, with 400 INVALID_ARGUMENT, v1 heartbeats that no
// group state could make valid: coordinator.CheckHeartbeat, the check every
// transport shares (the Redis mailbox too).
func checkHeartbeat(r *protocol.HeartbeatRequest) error {
	if err := coordinator.CheckHeartbeat(r); err != nil {
		return invalidArgument("%s", err.Error())
	}
	return nil
}
