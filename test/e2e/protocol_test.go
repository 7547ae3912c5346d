package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// The KIP-848 walkthrough: A owns everything; B joins (not confirmed yet:
// nothing, and nothing is revoked for it), confirms with its next heartbeat
// and gets pending shards; A is told to revoke; A releases; B gets the
// shards. Never two holders at any step.
func TestKIP848Walkthrough(t *testing.T) {
	overBoth(t, nil, true, func(t *testing.T, e *env) {
		e.c.CreateStream(t, "orders", 4)
		a, b := e.member("a"), e.member("b")

		r := a.Beat(t)
		require.Equal(t, protocol.StatusOK, r.Status)
		require.Equal(t, []int{0, 1, 2, 3}, a.Shards())
		a.Beat(t) // A confirmed
		epochA := a.Epoch
		require.Positive(t, epochA)

		r = b.Beat(t)
		require.Equal(t, protocol.StatusOK, r.Status)
		require.Empty(t, r.Assignment.PendingShards, "admission: an unconfirmed member takes nothing")
		r = b.Beat(t) // confirmed
		require.Equal(t, protocol.StatusOK, r.Status)
		require.Empty(t, b.Shards(), "B must not read anything A still holds")
		require.Len(t, r.Assignment.PendingShards, 2, "B waits for two shards")
		pending := shardsOf(r.Assignment.PendingShards)
		singleOwner(t, e, a, b)

		r = a.Beat(t)
		require.Equal(t, protocol.StatusOK, r.Status)
		require.Len(t, r.Assignment.AssignedShards, 2, "A is told to revoke two shards")
		require.Equal(t, pending, keys(a.Draining), "A drains exactly B's pending shards")
		require.Equal(t, epochA, a.Epoch, "epoch stays until the revocation is done")
		singleOwner(t, e, a, b)

		r = b.Beat(t)
		require.Empty(t, b.Shards(), "still draining on A: B must wait")
		singleOwner(t, e, a, b)

		a.Release()
		r = a.Beat(t)
		require.Equal(t, protocol.StatusOK, r.Status)
		require.Greater(t, a.Epoch, epochA, "A advances to the assignment epoch once released")

		r = b.Beat(t)
		require.Equal(t, protocol.StatusOK, r.Status)
		require.Equal(t, pending, b.Shards(), "B gets the released shards")
		require.Empty(t, r.Assignment.PendingShards)
		singleOwner(t, e, a, b)

		var g protocol.GroupResponse
		e.c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/workers", nil, &g, 200)
		require.Equal(t, protocol.GroupStable, g.State)
		require.Equal(t, map[string]int{"a": 2, "b": 2}, g.CurrentAssignmentSummary)
	})
}

func keys(m map[int]bool) []int {
	out := []int{}
	for s := 0; s < 64; s++ {
		if m[s] {
			out = append(out, s)
		}
	}
	return out
}

// beatAll heartbeats every member n times, releasing revocations at once.
func beatAll(t *testing.T, n int, ms ...*harness.Member) {
	t.Helper()
	for i := 0; i < n; i++ {
		for _, m := range ms {
			m.Release()
			m.Beat(t)
		}
	}
}

func TestExpiryAfterLeaseMovesOnlyTheDepartedShards(t *testing.T) {
	overBoth(t, nil, false, func(t *testing.T, e *env) {
		e.c.CreateStream(t, "orders", 6)
		a, b, c := e.member("a"), e.member("b"), e.member("c")
		beatAll(t, 4, a, b, c)
		require.Len(t, a.Shards(), 2)
		before := map[string][]int{"a": a.Shards(), "b": b.Shards()}

		// c goes silent; a and b keep heartbeating past c's lease.
		deadline := time.Now().Add(6 * time.Second)
		for time.Now().Before(deadline) && len(a.Shards())+len(b.Shards()) < 6 {
			beatAll(t, 1, a, b)
			singleOwner(t, e, a, b)
			time.Sleep(200 * time.Millisecond)
		}
		require.Equal(t, 6, len(a.Shards())+len(b.Shards()), "c's shards are re-owned after its lease")
		require.Subset(t, a.Shards(), before["a"], "a keeps its own shards (stickiness)")
		require.Subset(t, b.Shards(), before["b"], "b keeps its own shards (stickiness)")
		require.Equal(t, protocol.MemberExpired, e.members(t)["c"].State)

		// c comes back with its old epoch: unknown, must rejoin.
		r := c.Send(t, c.Request())
		require.Equal(t, protocol.StatusUnknownMemberID, r.Status)
	})
}

func TestRebalanceTimeoutFencesAndBlocksUntilRejoin(t *testing.T) {
	overBoth(t, map[string]string{"RSC_COORDINATION_MEMBER_LEASE_TTL": "10s", "RSC_COORDINATION_REBALANCE_TIMEOUT": "1s"}, false, func(t *testing.T, e *env) {
		e.c.CreateStream(t, "orders", 4)
		a, b := e.member("a"), e.member("b")
		a.Beat(t)
		b.Beat(t)
		b.Beat(t) // b confirmed (admission)
		a.Beat(t) // told to revoke two shards; a never releases them
		require.Len(t, a.Draining, 2)
		drained := keys(a.Draining)

		var r protocol.HeartbeatResponse
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			r = a.Send(t, a.Request())
			if r.Status == protocol.StatusFencedMemberEpoch {
				break
			}
			time.Sleep(150 * time.Millisecond)
		}
		require.Equal(t, protocol.StatusFencedMemberEpoch, r.Status, "revocation past the rebalance timeout fences the member")
		require.Equal(t, protocol.MemberFenced, e.members(t)["a"].State)

		// a's shards stay blocked: it may still be reading them.
		r = b.Beat(t)
		for _, s := range drained {
			require.NotContains(t, b.Shards(), s, "a fenced member's shard is not handed out before it is released")
		}

		// a rejoins owning nothing: its shards are free.
		a.Apply(r0(protocol.StatusFencedMemberEpoch))
		r = a.Beat(t)
		require.Equal(t, protocol.StatusOK, r.Status)
		beatAll(t, 3, b, a)
		singleOwner(t, e, a, b)
		require.Equal(t, 4, len(a.Shards())+len(b.Shards()))
	})
}

func r0(s protocol.Status) protocol.HeartbeatResponse { return protocol.HeartbeatResponse{Status: s} }

func TestLeaveReleasesAtOnce(t *testing.T) {
	overBoth(t, nil, true, func(t *testing.T, e *env) {
		e.c.CreateStream(t, "orders", 4)
		a, b := e.member("a"), e.member("b")
		beatAll(t, 4, a, b)
		require.Len(t, b.Shards(), 2)

		req := b.Request()
		req.MemberEpoch = protocol.EpochLeave
		req.OwnedShards = []protocol.ShardID{}
		r := b.Send(t, req)
		require.Equal(t, protocol.StatusOK, r.Status)
		require.Equal(t, protocol.EpochLeave, r.MemberEpoch)

		beatAll(t, 2, a)
		require.Equal(t, []int{0, 1, 2, 3}, a.Shards())
		_, known := e.members(t)["b"]
		require.False(t, known, "a member that left with nothing owned is gone")
	})
}

func TestPreviousEpochIsAcceptedAfterLostResponse(t *testing.T) {
	overBoth(t, nil, true, func(t *testing.T, e *env) {
		e.c.CreateStream(t, "orders", 4)
		a, b := e.member("a"), e.member("b")
		a.Beat(t)
		b.Beat(t)
		b.Beat(t) // b confirmed (admission)
		a.Beat(t) // revoke two
		a.Release()
		old := a.Epoch
		lost := a.Request()
		r := a.Send(t, lost) // the coordinator advances a's epoch; the response is "lost"
		require.Greater(t, r.MemberEpoch, old)

		retry := a.Request() // same epoch as before, owned ⊆ assigned
		require.Equal(t, old, retry.MemberEpoch)
		r2 := a.Send(t, retry)
		require.Equal(t, protocol.StatusOK, r2.Status, r2.Message)
		require.Equal(t, r.MemberEpoch, r2.MemberEpoch)
		a.Apply(r2)
		singleOwner(t, e, a, b)
	})
}

func TestBogusOwnershipClaimIsFenced(t *testing.T) {
	overBoth(t, nil, true, func(t *testing.T, e *env) {
		e.c.CreateStream(t, "orders", 4)
		a, b := e.member("a"), e.member("b")
		beatAll(t, 4, a, b)
		req := b.Request()
		req.OwnedShards = append(req.OwnedShards, protocol.ShardID{ShardIndex: a.Shards()[0]})
		r := b.Send(t, req)
		require.Equal(t, protocol.StatusFencedMemberEpoch, r.Status)
		require.NotEmpty(t, r.Message)

		// a keeps its shards; b's are blocked until b rejoins owning nothing.
		r = a.Beat(t)
		require.Equal(t, protocol.StatusOK, r.Status)
		require.Len(t, a.Shards(), 2)
	})
}

func TestUnknownStreamAndProtocolVersion(t *testing.T) {
	overBoth(t, nil, true, func(t *testing.T, e *env) {
		m := harness.NewMember(e.c, "nosuchstream", "workers", "a")
		m.Via = e.via
		r := m.Send(t, m.Request())
		require.Equal(t, protocol.StatusUnknownMemberID, r.Status)
		require.Contains(t, r.Message, "nosuchstream")

		e.c.CreateStream(t, "orders", 2)
		a := e.member("a")
		req := a.Request()
		req.ProtocolVersion = 2
		r = a.Send(t, req)
		require.Equal(t, protocol.StatusUnsupportedProtocol, r.Status)

		req = a.Request()
		req.MemberID = "someone-else"
		r = a.Send(t, req)
		require.Equal(t, protocol.StatusInvalidRequest, r.Status)

		// Refused before evaluation: HTTP 400 and an error body, over both
		// transports (the transcripts compare the bodies byte for byte).
		negative := a.Request()
		negative.RequestID, negative.MetadataVersion = "bad-2", -1
		invalid, err := json.Marshal(negative)
		require.NoError(t, err)
		for _, c := range []struct{ body, code string }{
			{`{"requestId":"bad-1","memberEpoch":"x"}`, protocol.CodeMalformedRequest},
			{string(invalid), protocol.CodeInvalidArgument},
			{`not json`, protocol.CodeMalformedRequest},
		} {
			status, raw, err := e.via.Heartbeat("orders", "workers", "a", []byte(c.body))
			require.NoError(t, err, c.body)
			require.Equal(t, 400, status, "%s: %s", c.body, raw)
			var eb protocol.ErrorBody
			require.NoError(t, json.Unmarshal(raw, &eb), string(raw))
			require.Equal(t, c.code, eb.ErrorCode, "%s: %s", c.body, raw)
		}
	})
}
