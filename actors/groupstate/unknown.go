package groupstate

import (
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// UnknownClaims decides whether a heartbeat the group rejected (its Decision answered
// UNKNOWN_MEMBER_ID with no Change) calls for a hold: the member reports an epoch and shards
// that this group, empty, has never heard of. youngDataSet: the store's data set is younger than
// a lease, so other members may have joined already while this one, of the earlier data set,
// was still retrying: its claim counts anyway. A hold that would not extend the current one is
// not returned. An identity refusal (MEMBER_ID_IN_USE, another principal) is never a sign of
// store loss: it is answered only for a member the group knows. Why such claims hold grants:
// answer.ClaimHold.
func (g *Group) UnknownClaims(hb *model.Heartbeat, youngDataSet bool, now time.Time) (answer.ClaimHold, bool) {
	n := len(hb.Owned) + len(hb.Revoking)
	if hb.MemberEpoch <= 0 || n == 0 || g.Known(hb.MemberID) {
		return answer.ClaimHold{}, false
	}
	if !youngDataSet && g.Occupied() > 0 {
		return answer.ClaimHold{}, false
	}
	until := now.Add(answer.ClaimHoldFor(g.cfg))
	if !until.After(g.holdUntil) {
		return answer.ClaimHold{}, false
	}
	return answer.ClaimHold{Until: until, Reason: fmt.Sprintf("member %q reports memberEpoch %d and %d shard(s) the store does not know",
		hb.MemberID, hb.MemberEpoch, n)}, true
}
