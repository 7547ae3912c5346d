package coordinator

import (
	"fmt"
	"math"
	"strings"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// InvalidHeartbeat is CheckHeartbeat's refusal: Msg names the field and
// what is wrong, for the caller. errors.Is(err, ErrInvalidArgument) holds,
// so every transport answers it like HTTP 400 INVALID_ARGUMENT (Answer).
type InvalidHeartbeat struct{ Msg string }

func (e *InvalidHeartbeat) Error() string        { return e.Msg }
func (e *InvalidHeartbeat) Is(target error) bool { return target == ErrInvalidArgument }

func invalidHeartbeat(format string, args ...any) error {
	return &InvalidHeartbeat{Msg: fmt.Sprintf(format, args...)}
}

// CheckHeartbeat refuses v1 heartbeats that no group state could make
// valid: negative or beyond-int32 shard indexes and counts, duplicate shards
// within a list, unknown revocation states, oversized free text. Every
// transport calls it after protocol.DecodeHeartbeat and before
// Members.Heartbeat. It leaves to the coordinator (a protocol status, HTTP
// 200) what SPEC §4 assigns to it: other protocol versions
// (UNSUPPORTED_PROTOCOL), memberEpoch < -1 and path/body memberId mismatch
// (INVALID_REQUEST), shards beyond the stream's shard count, stale epochs
// (FENCED_MEMBER_EPOCH).
func CheckHeartbeat(r *protocol.HeartbeatRequest) error {
	if r.ProtocolVersion != protocol.Version {
		return nil
	}
	if r.MetadataVersion < 0 {
		return invalidHeartbeat("metadataVersion %d must not be negative", r.MetadataVersion)
	}
	if err := protocol.ValidateIncarnationID(r.IncarnationID); err != nil {
		return invalidHeartbeat("%s", strings.TrimPrefix(err.Error(), protocol.ErrInvalidName.Error()+": "))
	}
	if err := protocol.ValidateInstanceID(r.InstanceID); err != nil {
		return invalidHeartbeat("%s", strings.TrimPrefix(err.Error(), protocol.ErrInvalidName.Error()+": "))
	}
	capy := r.RuntimeConsumerCapacity
	if !inInt32(capy.RuntimeMaxConcurrency) || !inInt32(capy.AvailableConcurrency) {
		return invalidHeartbeat("runtimeConsumerCapacity values must be in 0..%d", math.MaxInt32)
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
			return invalidHeartbeat("revokingShards: state %q is not REVOKING, DRAINING or REVOKED", truncate(rs.State, 40))
		}
		if !inInt32(rs.InFlight) {
			return invalidHeartbeat("revokingShards: inFlight %d is out of range", rs.InFlight)
		}
		if rs.AckedAt != nil && len(*rs.AckedAt) > protocol.MaxStringLength {
			return invalidHeartbeat("revokingShards: ackedAt is too long")
		}
	}
	if err := checkShardList("shardProgress", len(r.ShardProgress), func(i int) int { return r.ShardProgress[i].Shard.ShardIndex }); err != nil {
		return err
	}
	for _, p := range r.ShardProgress {
		if p.PendingCount < 0 {
			return invalidHeartbeat("shardProgress: pendingCount %d must not be negative", p.PendingCount)
		}
		if len(p.StreamKey)+len(p.LastDeliveredID)+len(p.LastAckedID)+len(p.UpdatedAt) > protocol.MaxStringLength {
			return invalidHeartbeat("shardProgress: text fields of shard %d are too long", p.Shard.ShardIndex)
		}
	}
	return nil
}

func inInt32(v int) bool { return v >= 0 && v <= math.MaxInt32 }

// checkShardList checks n shard indexes (given by at) for range and duplicates.
func checkShardList(field string, n int, at func(int) int) error {
	for i := 0; i < n; i++ {
		if !inInt32(at(i)) {
			return invalidHeartbeat("%s: shardIndex %d is out of range 0..%d", field, at(i), math.MaxInt32)
		}
	}
	if n <= 32 { // small lists: no allocation
		for i := 1; i < n; i++ {
			for j := 0; j < i; j++ {
				if at(i) == at(j) {
					return invalidHeartbeat("%s: shard %d is listed twice", field, at(i))
				}
			}
		}
		return nil
	}
	seen := make(map[int]struct{}, n)
	for i := 0; i < n; i++ {
		if _, dup := seen[at(i)]; dup {
			return invalidHeartbeat("%s: shard %d is listed twice", field, at(i))
		}
		seen[at(i)] = struct{}{}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
