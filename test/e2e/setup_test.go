package e2e

import (
	"crypto/tls"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// Timing used by these tests: short, so expiry and timeouts happen within
// seconds. The lease is 4 heartbeat intervals, as recommended.
var fastTiming = map[string]string{
	"RSC_COORDINATION_HEARTBEAT_INTERVAL": "250ms",
	"RSC_COORDINATION_MEMBER_LEASE_TTL":   "1500ms",
	"RSC_COORDINATION_REBALANCE_TIMEOUT":  "1500ms",
}

type env struct {
	redis *redistest.Server
	coord *harness.Coordinator
	c     *harness.Client
	via   *recording // when set (overBoth), members heartbeat through it
}

func start(t *testing.T, extra map[string]string) *env {
	t.Helper()
	return startWith(t, extra, nil)
}

// startWith is start for a coordinator serving HTTPS (RSC_HTTP_TLS_* in
// extra), reached with clientTLS; nil is start.
func startWith(t *testing.T, extra map[string]string, clientTLS *tls.Config) *env {
	t.Helper()
	r := redistest.Start(t)
	settings := map[string]string{}
	for k, v := range fastTiming {
		settings[k] = v
	}
	for k, v := range extra {
		settings[k] = v
	}
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: r.Addr(), Env: settings, ClientTLS: clientTLS})
	c := harness.NewClient(coord.URL())
	if clientTLS != nil {
		c.HTTP = coord.HTTPClient()
	}
	return &env{redis: r, coord: coord, c: c}
}

func (e *env) member(id string) *harness.Member {
	m := harness.NewMember(e.c, "orders", "workers", id)
	if e.via != nil {
		m.Via = e.via
	}
	return m
}

func (e *env) assignments(t *testing.T) protocol.AssignmentsResponse {
	t.Helper()
	var out protocol.AssignmentsResponse
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/workers/assignments", nil, &out, 200)
	return out
}

func (e *env) members(t *testing.T) map[string]protocol.MemberView {
	t.Helper()
	var out protocol.MembersResponse
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/workers/members", nil, &out, 200)
	m := map[string]protocol.MemberView{}
	for _, v := range out.Members {
		m[v.MemberID] = v
	}
	return m
}

// singleOwner fails the test if two members read or drain the same shard,
// and checks the coordinator reports no invariant violation.
func singleOwner(t *testing.T, e *env, ms ...*harness.Member) {
	t.Helper()
	owner := map[int]string{}
	for _, m := range ms {
		for s := 0; s < 64; s++ {
			if !m.Reading(s) {
				continue
			}
			if o, ok := owner[s]; ok {
				t.Fatalf("shard %d read by %s and %s at once", s, o, m.ID)
			}
			owner[s] = m.ID
		}
	}
	require.Empty(t, e.assignments(t).InvariantViolations)
}

func shardsOf(ids []protocol.ShardID) []int { return protocol.Indexes(ids) }

func fmtShards(m *harness.Member) string { return fmt.Sprint(m.Shards()) }
