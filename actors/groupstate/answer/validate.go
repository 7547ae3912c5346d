package answer

import (
	"fmt"
	"slices"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// Report is a validated heartbeat's ownership report.
type Report struct {
	Owned []int // sorted ownedShards
	Held  []int // sorted, unique: owned ∪ revoking entries still REVOKING/DRAINING
	// Draining is the sorted revoking entries reported DRAINING or REVOKING: on a leave, the
	// only shards the member may still be reading (SPEC §4; see leave for REVOKING).
	Draining []int
}

// Validate checks a heartbeat's contract (everything except protocolVersion). It returns a
// non-empty message for INVALID_REQUEST. It never looks at group state.
func Validate(hb *model.Heartbeat) (Report, string) {
	var r Report
	if hb.MemberID == "" {
		return r, "memberId is empty"
	}
	if hb.MemberID != hb.PathMemberID {
		return r, fmt.Sprintf("memberId %q in the body differs from %q in the path", hb.MemberID, hb.PathMemberID)
	}
	if len(hb.Incarnation) > model.MaxIncarnationLength {
		return r, fmt.Sprintf("incarnationId is %d bytes long, the limit is %d", len(hb.Incarnation), model.MaxIncarnationLength)
	}
	if len(hb.InstanceID) > model.MaxInstanceIDLength {
		return r, fmt.Sprintf("instanceId is %d bytes long, the limit is %d", len(hb.InstanceID), model.MaxInstanceIDLength)
	}
	if hb.MemberEpoch < -2 {
		return r, fmt.Sprintf("memberEpoch %d is invalid (0 = join, -1 = leave, -2 = temporary leave of a static member, >0 = the epoch last given)", hb.MemberEpoch)
	}
	if hb.MemberEpoch == -2 && hb.InstanceID == "" {
		return r, "memberEpoch -2 (temporary leave) needs the instanceId the member joined with; a member without instanceId leaves with memberEpoch -1"
	}
	if hb.MetadataVersion < 0 {
		return r, fmt.Sprintf("metadataVersion %d is negative", hb.MetadataVersion)
	}
	if hb.MemberEpoch == 0 && (len(hb.Owned) > 0 || len(hb.Revoking) > 0) {
		return r, "a join (memberEpoch 0) must report no ownedShards and no revokingShards"
	}
	r.Owned = hb.Owned
	if !slices.IsSorted(r.Owned) {
		// Members send them sorted; the report never ends up in the state, so a sorted
		// list is used as it is (validate and the evaluation only read it).
		r.Owned = shardset.SortedCopy(r.Owned)
	}
	if len(r.Owned) > 0 && r.Owned[0] < 0 {
		return r, fmt.Sprintf("ownedShards contains negative shardIndex %d", r.Owned[0])
	}
	if d, ok := shardset.FirstDup(r.Owned); ok {
		return r, fmt.Sprintf("ownedShards lists shard %d twice", d)
	}
	r.Held = r.Owned
	if len(hb.Revoking) == 0 {
		return r, ""
	}
	all := make([]int, 0, len(hb.Revoking))
	var still []int
	for _, e := range hb.Revoking {
		if e.Shard < 0 {
			return r, fmt.Sprintf("revokingShards contains negative shardIndex %d", e.Shard)
		}
		if e.InFlight < 0 {
			return r, fmt.Sprintf("revokingShards shard %d has negative inFlight %d", e.Shard, e.InFlight)
		}
		switch e.State {
		case model.RevokeRevoking, model.RevokeDraining:
			r.Draining = append(r.Draining, e.Shard)
			still = append(still, e.Shard)
		case model.RevokeRevoked:
		default:
			return r, fmt.Sprintf("revokingShards shard %d has unknown state %q (want REVOKING, DRAINING or REVOKED)", e.Shard, e.State)
		}
		all = append(all, e.Shard)
	}
	slices.Sort(all)
	if d, ok := shardset.FirstDup(all); ok {
		return r, fmt.Sprintf("revokingShards lists shard %d twice", d)
	}
	slices.Sort(r.Draining)
	if len(still) > 0 {
		slices.Sort(still)
		r.Held = shardset.Union(r.Owned, still)
	}
	return r, ""
}

// Precheck checks what every group rejects alike: the protocol version and the request's
// contract (Validate). It returns the status and message of the rejection ("" when none).
func Precheck(hb *model.Heartbeat) (model.Status, string, Report) {
	if hb.ProtocolVersion != 1 {
		return model.StatusUnsupportedProtocol, fmt.Sprintf(
			"protocolVersion %d is not supported; this coordinator speaks protocol version 1 only", hb.ProtocolVersion), Report{}
	}
	r, msg := Validate(hb)
	if msg != "" {
		return model.StatusInvalidRequest, "invalid heartbeat: " + msg + "; fix the client, do not retry unchanged", r
	}
	return "", "", r
}
