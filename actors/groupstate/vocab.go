package groupstate

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// The vocabulary of the rules lives in groupstate/model and the answers decided without a
// group's state in groupstate/answer; these names keep groupstate's API whole for its callers.

// Records, requests and responses (groupstate/model).
type (
	Config               = model.Config
	Status               = model.Status
	MemberState          = model.MemberState
	RevokeState          = model.RevokeState
	Capacity             = model.Capacity
	RevokingShard        = model.RevokingShard
	Heartbeat            = model.Heartbeat
	Response             = model.Response
	Member               = model.Member
	Meta                 = model.Meta
	Cause                = answer.Cause
	ClaimHold            = answer.ClaimHold
	UnknownGroupDecision = answer.UnknownGroupDecision
)

// Limits, statuses, states and causes (groupstate/model, groupstate/answer).
const (
	LimitMembersPerGroup          = model.LimitMembersPerGroup
	LimitJoinsPerSecond           = model.LimitJoinsPerSecond
	MaxIncarnationLength          = model.MaxIncarnationLength
	MaxInstanceIDLength           = model.MaxInstanceIDLength
	StatusUnreleasedInstanceID    = model.StatusUnreleasedInstanceID
	StatusOK                      = model.StatusOK
	StatusRetry                   = model.StatusRetry
	StatusSyncMetadata            = model.StatusSyncMetadata
	StatusUnknownMemberID         = model.StatusUnknownMemberID
	StatusFencedMemberEpoch       = model.StatusFencedMemberEpoch
	StatusUnsupportedProtocol     = model.StatusUnsupportedProtocol
	StatusInvalidRequest          = model.StatusInvalidRequest
	StatusMemberIDInUse           = model.StatusMemberIDInUse
	StatusOwnedByAnotherPrincipal = model.StatusOwnedByAnotherPrincipal
	StateStarting                 = model.StateStarting
	StateActive                   = model.StateActive
	StateLeaving                  = model.StateLeaving
	StateExpired                  = model.StateExpired
	StateFenced                   = model.StateFenced
	RevokeRevoking                = model.RevokeRevoking
	RevokeDraining                = model.RevokeDraining
	RevokeRevoked                 = model.RevokeRevoked
	CauseStoreUnreachable         = answer.CauseStoreUnreachable
	CauseQueueWait                = answer.CauseQueueWait
	CauseUnconfirmed              = answer.CauseUnconfirmed
	CauseNotStored                = answer.CauseNotStored
	CauseNotAnswering             = answer.CauseNotAnswering
	CauseCreateFailed             = answer.CauseCreateFailed
	CauseRefusing                 = answer.CauseRefusing
	CauseGroupLimit               = answer.CauseGroupLimit
	CauseStreamMissing            = answer.CauseStreamMissing
)

// Unevaluated answers hb for cause c without evaluating any group (answer.Unevaluated).
func Unevaluated(hb *Heartbeat, c Cause, detail string) Response {
	return answer.Unevaluated(hb, c, detail)
}

// Reject decides whether every group would reject hb, and answers it (answer.Reject).
func Reject(hb *Heartbeat) (Response, bool) { return answer.Reject(hb) }

// UnknownGroup decides a heartbeat for a group the store does not have (answer.UnknownGroup).
func UnknownGroup(hb *Heartbeat, streamPrefix, groupName string, explicit bool, cfg Config, now time.Time) UnknownGroupDecision {
	return answer.UnknownGroup(hb, streamPrefix, groupName, explicit, cfg, now)
}
