package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// The impersonation attack, replayed with member authentication on: user om (MEMBER, stream
// orders) speaks for 10.0.3.7-m0, a member that user billing joined in group billing. Every
// heartbeat (memberEpoch 999, a rejoin, a forged leave listing the victim's shards) is answered
// 403 MEMBER_OWNED_BY_ANOTHER_PRINCIPAL, and the victim keeps every shard, its epoch and its
// lease; the shard fences still name it. The victim's incarnationId is shown by no monitoring
// or debug route.
func TestImpersonationRefused(t *testing.T) {
	users := `[{"username":"admin","password":"admin-secret","roles":["WRITE"]},` +
		`{"username":"billing","password":"billing-secret","roles":["MEMBER"],"streams":["orders"]},` +
		`{"username":"om","password":"om-secret","roles":["MEMBER"],"streams":["orders","orders:*"]}]`
	e := start(t, map[string]string{"RSC_AUTH_USERS": users, "RSC_AUTH_TOKEN_SECRET": "0123456789abcdef0123456789abcdef",
		"RSC_AUTH_AUTHENTICATE_MEMBER_API": "true",
		// Long enough that the victim's lease cannot run out during the attack by itself.
		"RSC_COORDINATION_MEMBER_LEASE_TTL": "30s", "RSC_COORDINATION_REBALANCE_TIMEOUT": "30s"})
	admin, billing, om := as(e, "admin", "admin-secret"), as(e, "billing", "billing-secret"), as(e, "om", "om-secret")
	admin.CreateStream(t, "orders", 4)

	const id, secret = "10.0.3.7-m0", "incarnation-7f3a9c41d2"
	victim := harness.NewMember(billing, "orders", "billing", id)
	join := victim.Request()
	join.IncarnationID = secret
	victim.Apply(victim.Send(t, join))
	beat := victim.Request()
	beat.IncarnationID = secret
	victim.Apply(victim.Send(t, beat))
	require.Equal(t, protocol.StatusOK, victim.Last.Status)
	require.Len(t, victim.Shards(), 4)
	before := memberOf(t, admin, id)
	fencesBefore := groupFences(t, e, "billing")
	for s, f := range fencesBefore {
		require.Equal(t, id, f.owner, "shard %d fenced to the victim", s)
	}

	forged := func(epoch int64, owned []int, inc string) protocol.HeartbeatRequest {
		r := harness.NewMember(om, "orders", "billing", id).Request()
		r.MemberEpoch, r.OwnedShards, r.IncarnationID = epoch, protocol.ShardIDs(owned), inc
		if epoch == protocol.EpochLeave {
			for _, s := range owned {
				r.RevokingShards = append(r.RevokingShards, protocol.RevokingShard{Shard: protocol.ShardID{ShardIndex: s}, State: protocol.RevokeStateRevoked})
			}
		}
		return r
	}
	attacks := []protocol.HeartbeatRequest{
		forged(999, []int{0, 1, 2, 3}, ""),
		forged(999, []int{0, 1, 2, 3}, secret), // even knowing the incarnation
		forged(before.MemberEpoch, []int{0, 1, 2, 3}, secret),
		forged(protocol.EpochLeave, []int{0, 1, 2, 3}, ""),
		forged(protocol.EpochLeave, []int{0, 1, 2, 3}, secret),
		forged(protocol.EpochJoin, nil, ""),
	}
	for round := 0; round < 4; round++ {
		for i, req := range attacks {
			status, raw, err := om.Do("POST", harness.HeartbeatPath("orders", "billing", id), req, nil)
			require.NoError(t, err)
			require.Equal(t, 403, status, "attack %d: %s", i, raw)
			var body protocol.ErrorBody
			require.NoError(t, json.Unmarshal(raw, &body))
			require.Equal(t, protocol.ErrorBody{Status: "FORBIDDEN", ErrorCode: protocol.CodeMemberOwnedByAnotherPrincipal, Message: body.Message}, body)
			require.Contains(t, body.Message, id, "the message names the member")
		}
	}

	after := memberOf(t, admin, id)
	require.Equal(t, "ACTIVE", after.State)
	require.Equal(t, before.MemberEpoch, after.MemberEpoch, "epoch unchanged")
	require.Equal(t, before.CurrentAssignment, after.CurrentAssignment, "every shard kept")
	require.Equal(t, before.MemberLeaseExpiresAt, after.MemberLeaseExpiresAt, "the attacker's heartbeats did not touch the lease")
	require.Equal(t, before.LastHeartbeatAt, after.LastHeartbeatAt)
	require.Equal(t, fencesBefore, groupFences(t, e, "billing"), "no fence moved")
	require.Equal(t, 1.0, admin.Metric(t, "rsc_member_principal_refusals_total"), "counted once per member id and principal")
	require.Equal(t, 1, strings.Count(e.coord.Logs(), "the member was joined by another principal"), "logged once")

	// The victim carries on at its epoch with its shards.
	victim.Apply(victim.Send(t, beat))
	require.Equal(t, protocol.StatusOK, victim.Last.Status)
	require.Equal(t, before.MemberEpoch, victim.Last.MemberEpoch)
	require.Len(t, victim.Shards(), 4)

	// The incarnation is never shown by monitoring or debug routes.
	for _, path := range []string{
		"/coord/v1/monitoring/groups",
		"/coord/v1/monitoring/streams/orders/groups/billing",
		"/coord/v1/monitoring/streams/orders/groups/billing/members",
		"/coord/v1/monitoring/streams/orders/groups/billing/assignments",
		"/coord/v1/monitoring/streams/orders/groups/billing/consumption",
		"/debug/actors",
		"/debug/streams/orders/groups/billing",
	} {
		status, raw, err := admin.Do("GET", path, nil, nil)
		require.NoError(t, err)
		require.Equal(t, 200, status, "%s: %s", path, raw)
		if !strings.HasSuffix(path, "/consumption") { // rows only for members that report progress
			require.Contains(t, string(raw), id, "%s shows the member", path)
		}
		require.NotContains(t, string(raw), secret, "%s must not show the incarnationId", path)
		require.NotContains(t, string(raw), "incarnationId", path)
	}
	require.NotContains(t, e.coord.Logs(), secret, "nor does the log")
}

// as is a client of e that authenticates as user.
func as(e *env, user, password string) *harness.Client {
	c := *e.c
	c.User, c.Password = user, password
	return &c
}

func memberOf(t *testing.T, c *harness.Client, id string) protocol.MemberView {
	t.Helper()
	var out protocol.MembersResponse
	c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/billing/members", nil, &out, 200)
	for _, m := range out.Members {
		if m.MemberID == id {
			return m
		}
	}
	t.Fatalf("member %s not listed", id)
	return protocol.MemberView{}
}

// groupFences reads the shard fences of orders/<group> from Redis.
func groupFences(t *testing.T, e *env, group string) []fence {
	t.Helper()
	out := make([]fence, 4)
	for s := range out {
		h, err := e.redis.Client().HGetAll(t.Context(), protocol.FenceKey(fmt.Sprintf("orders:%d", s), group)).Result()
		require.NoError(t, err)
		out[s] = fence{owner: h["owner"]}
		if h["token"] != "" {
			require.NoError(t, json.Unmarshal([]byte(h["token"]), &out[s].token))
		}
	}
	return out
}
