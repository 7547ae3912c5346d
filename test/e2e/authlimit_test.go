package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// TestBruteForceAndAuditFloodAgainstAProcess: against a real coordinator and
// redis-server, wrong Basic passwords on a read route and on the heartbeat
// route are refused 429 after the burst, a real user with the right password
// from the same address still gets in, the lock-out is audited once, and an
// anonymous flood of admin requests does not push an authenticated record
// out of a small audit stream.
func TestBruteForceAndAuditFloodAgainstAProcess(t *testing.T) {
	users := `[{"username":"admin","password":"admin-secret","roles":["ADMIN"]},{"username":"viewer","password":"viewer-secret","roles":["READ"]}]`
	e := start(t, map[string]string{"RSC_AUTH_USERS": users, "RSC_AUTH_TOKEN_SECRET": "0123456789abcdef0123456789abcdef",
		"RSC_AUTH_FAILED_AUTH_PER_ADDRESS_BURST": "5", "RSC_AUTH_FAILED_AUTH_PER_ADDRESS_RATE": "0.001",
		"RSC_AUDIT_REDIS_STREAM": "rsc:audit", "RSC_AUDIT_REDIS_MAXLEN": "50", "RSC_AUDIT_REFUSAL_WINDOW": "1h"})
	admin := *e.c
	admin.User, admin.Password = "admin", "admin-secret"
	admin.MustDo(t, "POST", "/coord/v1/streams/orders", protocol.CreateStreamRequest{RequestedBy: "real-admin"}, nil, 201)

	wrong := *e.c
	codes := map[int]int{}
	for i := 0; i < 50; i++ {
		wrong.User, wrong.Password = fmt.Sprint("user", i), "nope"
		status, _, err := wrong.Do("GET", "/coord/v1/monitoring/groups", nil, nil)
		require.NoError(t, err)
		codes[status]++
	}
	require.Equal(t, map[int]int{401: 5, 429: 45}, codes)
	join := harness.NewMember(e.c, "orders", "workers", "w-1").Request()
	status, _, _ := wrong.Do("POST", harness.HeartbeatPath("orders", "workers", "w-1"), join, nil)
	require.Equal(t, 429, status, "the heartbeat route is limited too")
	viewer := *e.c
	viewer.User, viewer.Password = "viewer", "viewer-secret"
	viewer.MustDo(t, "GET", "/coord/v1/monitoring/groups", nil, nil, 200)

	// The flood: anonymous admin requests.
	for i := 0; i < 500; i++ {
		status, _, err := e.c.Do("POST", "/coord/v1/streams/orders/scale", map[string]any{"targetShardCount": 0, "requestedBy": "x\nforged"}, nil)
		require.NoError(t, err)
		require.Equal(t, 401, status)
	}
	rc := e.redis.NewClient(nil)
	defer rc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var entries []map[string]any
	require.Eventually(t, func() bool {
		msgs, err := rc.XRange(ctx, "rsc:audit", "-", "+").Result()
		require.NoError(t, err)
		entries = entries[:0]
		for _, m := range msgs {
			entries = append(entries, m.Values)
		}
		return len(entries) >= 3
	}, 10*time.Second, 20*time.Millisecond)
	var adminOK, locked, refused int
	for _, v := range entries {
		switch {
		case v["principal"] == "admin" && v["result"] == "ok":
			adminOK++
		case v["result"] == "locked":
			locked++
		case v["result"] == "denied" || v["result"] == "refused":
			refused++
			require.NotContains(t, v["caller.requestedBy"], "\n")
		}
	}
	require.Equal(t, 1, adminOK, "the authenticated record is still in the stream: %v", entries)
	require.Equal(t, 1, locked, "one record for the lock-out, not one per attempt: %v", entries)
	require.LessOrEqual(t, refused, 2, "the flood is summarised: %v", entries)
}
