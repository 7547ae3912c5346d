package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
	"github.com/redisstream/coordinator/test/recorder"
)

// Capacity-weighted assignment end to end (issue 20 point 2): a group created with
// assignment capacity, two SDK member processes reporting runtimeMaxConcurrency 8 and 4 get
// 12 shards 8:4; the admin API switches the group to uniform (6:6) and back (8:4), and the
// members follow each time, every shard read by its one owner.
func TestCapacityAssignmentWithSDKMembers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a coordinator and two member processes")
	}
	r := redistest.Start(t)
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: r.Addr(), Env: map[string]string{
		"RSC_COORDINATION_HEARTBEAT_INTERVAL": "250ms",
		"RSC_COORDINATION_MEMBER_LEASE_TTL":   "3s",
		"RSC_COORDINATION_REBALANCE_TIMEOUT":  "5s",
	}})
	c := harness.NewClient(coord.URL())
	c.CreateStream(t, "orders", 12)
	const group = "/coord/v1/streams/orders/groups/workers"
	var g protocol.GroupResponse
	c.MustDo(t, "POST", group, protocol.CreateGroupRequest{RequestedBy: "e2e", Assignment: protocol.AssignmentCapacity}, &g, 201)
	require.Equal(t, protocol.AssignmentCapacity, g.Assignment)

	rec := recorder.New()
	for id, conc := range map[string]int{"big": 8, "small": 4} {
		harness.StartMember(t, rec, harness.MemberOptions{ID: id, CoordinatorURLs: []string{coord.URL()}, RedisAddr: r.Addr(), Concurrency: conc})
	}
	waitShares(t, c, map[string]int{"big": 8, "small": 4})
	members := map[string]protocol.MemberView{}
	var mr protocol.MembersResponse
	c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/workers/members", nil, &mr, 200)
	for _, m := range mr.Members {
		members[m.MemberID] = m
	}
	require.Equal(t, 8, members["big"].RuntimeMaxConcurrency, "the SDK reports ConsumerConfig.Concurrency")
	require.Equal(t, 4, members["small"].RuntimeMaxConcurrency)

	c.MustDo(t, "POST", group+"/assignment", protocol.SetAssignmentRequest{Assignment: protocol.AssignmentUniform, RequestedBy: "e2e", Reason: "compare"}, &g, 200)
	require.Equal(t, protocol.AssignmentUniform, g.Assignment)
	waitShares(t, c, map[string]int{"big": 6, "small": 6})

	c.MustDo(t, "POST", group+"/assignment", protocol.SetAssignmentRequest{Assignment: protocol.AssignmentCapacity, RequestedBy: "e2e"}, &g, 200)
	waitShares(t, c, map[string]int{"big": 8, "small": 4})
	c.MustDo(t, "GET", group, nil, &g, 200)
	require.Equal(t, protocol.AssignmentCapacity, g.Assignment, "the mode is kept with the group")

	status, body, err := c.Do("POST", group+"/assignment", map[string]string{"assignment": "fair", "requestedBy": "e2e"}, nil)
	require.NoError(t, err)
	require.Equal(t, 400, status)
	require.Contains(t, string(body), `is not a mode: send \"uniform\"`, "the refusal names the modes")
}

// waitShares waits until the group is stable with every member's target and current
// assignment at the given counts.
func waitShares(t *testing.T, c *harness.Client, want map[string]int) {
	t.Helper()
	var g protocol.GroupResponse
	deadline := time.Now().Add(30 * time.Second)
	for {
		c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/workers", nil, &g, 200)
		if g.State == "STABLE" && equalCounts(g.TargetAssignmentSummary, want) && equalCounts(g.CurrentAssignmentSummary, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("shares not %v within 30s: state %s, target %v, current %v", want, g.State, g.TargetAssignmentSummary, g.CurrentAssignmentSummary)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func equalCounts(got, want map[string]int) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}
