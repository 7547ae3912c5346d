package edge

import (
	"math"
	"strings"

	"github.com/redisstream/coordinator/api/httpx"

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
	return Text("reason", r.Reason, MaxReason, true)
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

// checkHeartbeat refuses, with 400, v1 heartbeats that no group state could
// make valid: negative or beyond-int32 shard indexes and counts, duplicate
// shards within a list, unknown revocation states, oversized free text.
// It leaves to the coordinator (HTTP 200 with a protocol status) what SPEC §4
// assigns to it: other protocol versions (UNSUPPORTED_PROTOCOL), memberEpoch
// < -1 and path/body memberId mismatch (INVALID_REQUEST), shards beyond the
// stream's shard count, stale epochs (FENCED_MEMBER_EPOCH).
func Heartbeat(r *protocol.HeartbeatRequest) error {
	if r.ProtocolVersion != protocol.Version {
		return nil
	}
	if r.MetadataVersion < 0 {
		return httpx.Invalid("metadataVersion %d must not be negative", r.MetadataVersion)
	}
	if err := protocol.ValidateIncarnationID(r.IncarnationID); err != nil {
		return httpx.Invalid("%s", strings.TrimPrefix(err.Error(), protocol.ErrInvalidName.Error()+": "))
	}
	capy := r.RuntimeConsumerCapacity
	if !inInt32(capy.RuntimeMaxConcurrency) || !inInt32(capy.AvailableConcurrency) {
		return httpx.Invalid("runtimeConsumerCapacity values must be in 0..%d", math.MaxInt32)
	}
	if err := checkShardList("ownedShards", len(r.OwnedShards), func(i int) int { return r.OwnedShards[i].ShardIndex }); err != nil {
		return err
	}
	if err := checkShardList("revokingShards", len(r.RevokingShards), func(i int) int { return r.RevokingShards[i].Shard.ShardIndex }); err != nil {
		return err
	}
	for _, rs := range r.RevokingShards {
		switch rs.State {
		case protocol.RevokeStateRevoking, protocol.RevokeStateDraining, protocol.RevokeStateRevoked:
		default:
			return httpx.Invalid("revokingShards: state %q is not REVOKING, DRAINING or REVOKED", httpx.Truncate(rs.State, 40))
		}
		if !inInt32(rs.InFlight) {
			return httpx.Invalid("revokingShards: inFlight %d is out of range", rs.InFlight)
		}
		if rs.AckedAt != nil && len(*rs.AckedAt) > protocol.MaxStringLength {
			return httpx.Invalid("revokingShards: ackedAt is too long")
		}
	}
	if err := checkShardList("shardProgress", len(r.ShardProgress), func(i int) int { return r.ShardProgress[i].Shard.ShardIndex }); err != nil {
		return err
	}
	for _, p := range r.ShardProgress {
		if p.PendingCount < 0 {
			return httpx.Invalid("shardProgress: pendingCount %d must not be negative", p.PendingCount)
		}
		if len(p.StreamKey)+len(p.LastDeliveredID)+len(p.LastAckedID)+len(p.UpdatedAt) > protocol.MaxStringLength {
			return httpx.Invalid("shardProgress: text fields of shard %d are too long", p.Shard.ShardIndex)
		}
	}
	return nil
}

func inInt32(v int) bool { return v >= 0 && v <= math.MaxInt32 }

// checkShardList checks n shard indexes (given by at) for range and duplicates.
func checkShardList(field string, n int, at func(int) int) error {
	for i := 0; i < n; i++ {
		if !inInt32(at(i)) {
			return httpx.Invalid("%s: shardIndex %d is out of range 0..%d", field, at(i), math.MaxInt32)
		}
	}
	if n <= 32 { // small lists: no allocation
		for i := 1; i < n; i++ {
			for j := 0; j < i; j++ {
				if at(i) == at(j) {
					return httpx.Invalid("%s: shard %d is listed twice", field, at(i))
				}
			}
		}
		return nil
	}
	seen := make(map[int]struct{}, n)
	for i := 0; i < n; i++ {
		if _, dup := seen[at(i)]; dup {
			return httpx.Invalid("%s: shard %d is listed twice", field, at(i))
		}
		seen[at(i)] = struct{}{}
	}
	return nil
}
