package answer

import "github.com/redisstream/coordinator/actors/groupstate/model"

// Every answer that grants nothing is built here, and every text a member is told when its
// heartbeat is not evaluated: the shells (actors/group, actors/host) observe a condition (a
// store they cannot reach, a queue wait past the deadline, a node that refuses) and name it; the
// rules decide the status and the words. The shells only map a model.Response to the wire.

// Cause is a condition a shell observed that keeps a heartbeat from being evaluated by a
// group's rules.
type Cause uint8

// Causes of an unevaluated heartbeat.
const (
	// CauseStoreUnreachable: the store could not be read (RETRY).
	CauseStoreUnreachable Cause = iota + 1
	// CauseQueueWait: the request waited past its deadline in the group's mailbox (RETRY).
	CauseQueueWait
	// CauseUnconfirmed: the activation cannot confirm it still owns the group (RETRY).
	CauseUnconfirmed
	// CauseNotStored: the decision could not be stored (RETRY).
	CauseNotStored
	// CauseNotAnswering: the group actor did not answer in time (RETRY).
	CauseNotAnswering
	// CauseCreateFailed: the group could not be created (RETRY).
	CauseCreateFailed
	// CauseRefusing: the node refuses to serve; detail says why (RETRY).
	CauseRefusing
	// CauseGroupLimit: creating the group would pass a limit; detail is the refusal (RETRY).
	CauseGroupLimit
	// CauseStreamMissing: the stream does not exist; detail is its prefix (UNKNOWN_MEMBER_ID).
	CauseStreamMissing
)

// Unevaluated answers hb for cause c without evaluating any group: nothing is granted and the
// member keeps its epoch and metadata version; the status tells it what to do.
// HeartbeatInterval is left zero (the shell's configured interval).
func Unevaluated(hb *model.Heartbeat, c Cause, detail string) model.Response {
	st, msg := model.StatusRetry, ""
	switch c {
	case CauseStoreUnreachable:
		msg = "the coordinator cannot reach its store right now; keep current ownership and retry"
	case CauseQueueWait:
		msg = "the request waited too long in the coordinator's queue and was not evaluated; retry"
	case CauseUnconfirmed:
		msg = "the coordinator cannot confirm with Redis that it still owns this group; keep current ownership and retry"
	case CauseNotStored:
		msg = "the coordinator could not store this decision; keep current ownership and retry"
	case CauseNotAnswering:
		msg = "the group is not answering right now (restarting or moving); keep current ownership and retry"
	case CauseCreateFailed:
		msg = "the coordinator could not create this group right now; keep current ownership and retry"
	case CauseRefusing:
		msg = "this coordinator node refuses to serve (" + detail + "; see its health); keep current ownership and retry, through another node"
	case CauseGroupLimit:
		msg = detail + "; retry later"
	case CauseStreamMissing:
		st, msg = model.StatusUnknownMemberID, "stream "+detail+" does not exist: create it, then rejoin with memberEpoch 0"
	}
	return Empty(hb, st, hb.MemberEpoch, hb.MetadataVersion, msg)
}

// Reject decides, without any group state, whether every group would reject hb
// (UNSUPPORTED_PROTOCOL or INVALID_REQUEST), and answers it. The shell asks before activating a
// group that is not running, so that such a request does not create and store the group. Like
// every unevaluated answer it echoes the member's epoch and metadata version.
func Reject(hb *model.Heartbeat) (model.Response, bool) {
	st, msg, _ := Precheck(hb)
	if st == "" {
		return model.Response{}, false
	}
	return Empty(hb, st, hb.MemberEpoch, hb.MetadataVersion, msg), true
}

// Empty is the one shape of a response that grants nothing: the member's id, the given epoch
// and metadata version, no shards (empty, not nil), the message.
func Empty(hb *model.Heartbeat, st model.Status, epoch, metadataVersion int64, msg string) model.Response {
	return model.Response{
		Status: st, MemberID: hb.MemberID, MemberEpoch: epoch, MetadataVersion: metadataVersion,
		Assigned: []int{}, Pending: []int{}, Message: msg,
	}
}
