package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// The hostile rows of issue 10, against a real coordinator process and a
// real redis-server: bounded state (flood of group names, unknown groups,
// member cap, join rate), admission (phantom members) and trusted versions.

// redisWrites fingerprints the coordinator's data in Redis: a digest of every key and its
// serialized value (DUMP), and the number of keys. The node records and the node registry
// every coordinator renews in the background ({prefix}:{n}:node:…, {prefix}:{n}:registry)
// are left out: they change on their own
// every confirmation round, whatever members do; so is every key containing one of skip
// (state a test lets change on its own meanwhile, e.g. groups whose members expire).
func redisWrites(t *testing.T, e *env, skip ...string) (digest string, keys int64) {
	t.Helper()
	ctx := context.Background()
	all, err := e.redis.Client().Keys(ctx, "*").Result()
	require.NoError(t, err)
	sort.Strings(all)
	h := sha256.New()
	for _, k := range all {
		if strings.Contains(k, ":node:") || strings.HasSuffix(k, ":registry") || slices.ContainsFunc(skip, func(s string) bool { return strings.Contains(k, s) }) {
			continue
		}
		v, err := e.redis.Client().Dump(ctx, k).Result()
		if errors.Is(err, redis.Nil) {
			continue // expired between KEYS and DUMP
		}
		require.NoError(t, err)
		fmt.Fprintf(h, "%q=%x\n", k, v)
		keys++
	}
	return hex.EncodeToString(h.Sum(nil)), keys
}

// limitRejections reads rsc_limit_rejections_total{limit=key} from /metrics.
func limitRejections(t *testing.T, e *env, key string) float64 {
	t.Helper()
	raw := e.c.MustDo(t, "GET", "/metrics", nil, nil, 200)
	prefix := `rsc_limit_rejections_total{limit="` + key + `"} `
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			require.NoError(t, err)
			return f
		}
	}
	t.Fatalf("/metrics has no series %s", strings.TrimSpace(prefix))
	return 0
}

// joinOnce sends one join (memberEpoch 0) for member id of group g.
func joinOnce(t *testing.T, c *harness.Client, prefix, g, id string) protocol.HeartbeatResponse {
	t.Helper()
	return harness.NewMember(c, prefix, g, id).Send(t, harness.NewMember(c, prefix, g, id).Request())
}

func errorBody(t *testing.T, raw []byte) protocol.ErrorBody {
	t.Helper()
	var b protocol.ErrorBody
	require.NoError(t, json.Unmarshal(raw, &b), string(raw))
	return b
}

// Row 1: epoch-0 heartbeats for 2,000 new group names on one stream, no
// credentials. At most limits.groups-per-stream groups are created; every
// other join is RETRY naming the limit and stores nothing; the admin routes
// refuse more groups with 429 LIMIT_EXCEEDED.
func TestFloodOfNewGroupNamesIsBounded(t *testing.T) {
	const limit, names, workers, shards = 40, 2000, 16, 2
	e := start(t, map[string]string{"RSC_LIMITS_GROUPS_PER_STREAM": strconv.Itoa(limit)})
	e.c.CreateStream(t, "orders", shards)
	_, keysBefore := redisWrites(t, e)

	var mu sync.Mutex
	statuses := map[protocol.Status]int{}
	var badRetry string
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				m := harness.NewMember(e.c, "orders", fmt.Sprintf("flood-%04d", i), "m")
				var resp protocol.HeartbeatResponse
				status, raw, err := e.c.Do("POST", harness.HeartbeatPath(m.Prefix, m.Group, m.ID), m.Request(), &resp)
				mu.Lock()
				switch {
				case err != nil || status != 200:
					statuses["HTTP "+protocol.Status(strconv.Itoa(status))]++
					badRetry = fmt.Sprintf("status %d err %v: %s", status, err, raw)
				default:
					statuses[resp.Status]++
					if resp.Status == protocol.StatusRetry && !strings.Contains(resp.Message, "limits.groups-per-stream") {
						badRetry = resp.Message
					}
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < names; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	require.Empty(t, badRetry, "every refusal names limits.groups-per-stream")
	require.Equal(t, map[protocol.Status]int{protocol.StatusOK: limit, protocol.StatusRetry: names - limit}, statuses)
	var groups protocol.GroupsResponse
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/groups", nil, &groups, 200)
	require.Len(t, groups.Groups, limit)
	_, keysAfter := redisWrites(t, e)
	// A group is two keys (meta, members) and one shard fence per shard it granted (beside the
	// streams, docs/PROTOCOL.md "Shard fence"), plus the shared groups index and the index of
	// groups with live members ({prefix}:live, created by the first join).
	require.LessOrEqual(t, keysAfter-keysBefore, int64((2+shards)*limit+2), "Redis key count is bounded by the limit")
	require.Equal(t, float64(names-limit), limitRejections(t, e, "limits.groups-per-stream"))

	// Refused joins write nothing at all. The flood's groups and the index of groups with live
	// members (and their shard fences) change meanwhile on their own (their silent members
	// expire, the groups passivate), so they are left out; a refused join would add keys and an
	// entry to the groups index.
	skip := []string{"|flood-", ":fence:flood-", ":live"}
	changes, keys := redisWrites(t, e, skip...)
	e.redis.ResetStats()
	for i := 0; i < 20; i++ {
		r := joinOnce(t, e.c, "orders", fmt.Sprintf("late-%d", i), "m")
		require.Equal(t, protocol.StatusRetry, r.Status)
	}
	var calls int64
	perCmd := e.redis.CommandCalls()
	for cmd, n := range perCmd {
		if cmd != "info" && cmd != "config|resetstat" {
			calls += n
		}
	}
	t.Logf("Redis commands per refused join: %.1f (%v)", float64(calls)/20, perCmd)
	c2, k2 := redisWrites(t, e, skip...)
	require.Equal(t, changes, c2, "a join refused by a limit changed Redis")
	require.Equal(t, keys, k2)

	// The admin routes refuse with 429 and the key named.
	for _, req := range []struct{ method, path string }{
		{"POST", "/coord/v1/streams/orders/groups/one-more"},
		{"GET", "/coord/v1/streams/orders/groups/one-more/producer-routing"},
	} {
		var body any
		if req.method == "POST" {
			body = protocol.CreateGroupRequest{RequestedBy: "test"}
		}
		status, raw, err := e.c.Do(req.method, req.path, body, nil)
		require.NoError(t, err)
		require.Equal(t, 429, status, "%s %s: %s", req.method, req.path, raw)
		b := errorBody(t, raw)
		require.Equal(t, protocol.CodeLimitExceeded, b.ErrorCode)
		require.Contains(t, b.Message, "limits.groups-per-stream")
	}
	c3, k3 := redisWrites(t, e, skip...)
	require.Equal(t, changes, c3)
	require.Equal(t, keys, k3)

	// Existing groups keep working.
	r := joinOnce(t, e.c, "orders", "flood-0000", "n")
	require.Equal(t, protocol.StatusOK, r.Status)
}

// Row 2: epoch-1 heartbeats (and a leave) for groups that do not exist are
// answered UNKNOWN_MEMBER_ID (OK for the leave) and store nothing.
func TestHeartbeatForUnknownGroupStoresNothing(t *testing.T) {
	e := start(t, nil)
	e.c.CreateStream(t, "orders", 2)
	changes, keys := redisWrites(t, e)
	for _, g := range []string{"ghost-a", "ghost-b"} {
		m := harness.NewMember(e.c, "orders", g, "m")
		m.Epoch = 1
		r := m.Send(t, m.Request())
		require.Equal(t, protocol.StatusUnknownMemberID, r.Status, g)
		require.Contains(t, r.Message, g)
		m.Epoch = -1
		r = m.Send(t, m.Request())
		require.Equal(t, protocol.StatusOK, r.Status, "leaving a group that does not exist is a no-op")
	}
	c2, k2 := redisWrites(t, e)
	require.Equal(t, changes, c2, "heartbeats for unknown groups changed Redis")
	require.Equal(t, keys, k2)
	var groups protocol.GroupsResponse
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/groups", nil, &groups, 200)
	require.Empty(t, groups.Groups)
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/ghost-a", nil, nil, 404)
}

// groups.creation explicit: joins, GET group and producer routing for an
// unknown group create nothing; POST …/groups/{g} creates it (201), a second
// POST is 409 GROUP_ALREADY_EXISTS; then members join as usual.
func TestExplicitGroupCreationOnly(t *testing.T) {
	e := start(t, map[string]string{"RSC_GROUPS_CREATION": "explicit"})
	e.c.CreateStream(t, "orders", 2)
	changes, keys := redisWrites(t, e)

	r := joinOnce(t, e.c, "orders", "workers", "a")
	require.Equal(t, protocol.StatusUnknownMemberID, r.Status)
	require.Contains(t, r.Message, "groups.creation is explicit")
	for _, p := range []string{"/coord/v1/streams/orders/groups/workers", "/coord/v1/streams/orders/groups/workers/producer-routing"} {
		raw := e.c.MustDo(t, "GET", p, nil, nil, 404)
		require.Equal(t, protocol.CodeGroupNotFound, errorBody(t, raw).ErrorCode, p)
	}
	c2, k2 := redisWrites(t, e)
	require.Equal(t, changes, c2, "explicit mode: requests for an unknown group changed Redis")
	require.Equal(t, keys, k2)

	var g protocol.GroupResponse
	e.c.MustDo(t, "POST", "/coord/v1/streams/orders/groups/workers", protocol.CreateGroupRequest{RequestedBy: "test", Reason: "new service"}, &g, 201)
	require.Equal(t, "workers", g.ConsumerGroup)
	require.Equal(t, 2, g.ShardCount)
	raw := e.c.MustDo(t, "POST", "/coord/v1/streams/orders/groups/workers", protocol.CreateGroupRequest{RequestedBy: "test"}, nil, 409)
	require.Equal(t, protocol.CodeGroupExists, errorBody(t, raw).ErrorCode)
	raw = e.c.MustDo(t, "POST", "/coord/v1/streams/nosuch/groups/workers", protocol.CreateGroupRequest{RequestedBy: "test"}, nil, 404)
	require.Equal(t, protocol.CodeStreamNotFound, errorBody(t, raw).ErrorCode)

	a := e.member("a")
	require.Equal(t, protocol.StatusOK, a.Beat(t).Status)
	require.Len(t, a.Shards(), 2)
}

// Member cap and join rate: a join beyond either is RETRY naming the key,
// stores nothing, and is counted.
func TestMemberCapAndJoinRateNameTheirLimit(t *testing.T) {
	e := start(t, map[string]string{
		"RSC_LIMITS_MEMBERS_PER_GROUP":      "3",
		"RSC_LIMITS_JOINS_PER_SECOND":       "0.5", // a token every 2 s: the burst stays spent while m3 tries
		"RSC_LIMITS_JOIN_BURST":             "2",
		"RSC_COORDINATION_MEMBER_LEASE_TTL": "30s", // nobody expires during the test
	})
	e.c.CreateStream(t, "orders", 4)
	for _, id := range []string{"m1", "m2"} {
		require.Equal(t, protocol.StatusOK, joinOnce(t, e.c, "orders", "workers", id).Status, id)
	}
	changes, keys := redisWrites(t, e)
	r := joinOnce(t, e.c, "orders", "workers", "m3")
	require.Equal(t, protocol.StatusRetry, r.Status, "the burst of 2 is spent")
	require.Contains(t, r.Message, "limits.joins-per-second")
	c2, k2 := redisWrites(t, e)
	require.Equal(t, changes, c2, "a join refused by the join rate changed Redis")
	require.Equal(t, keys, k2)

	// Once a token is back, m3 gets in; m4 then hits the member cap.
	joined := false
	for deadline := time.Now().Add(8 * time.Second); time.Now().Before(deadline) && !joined; time.Sleep(250 * time.Millisecond) {
		joined = joinOnce(t, e.c, "orders", "workers", "m3").Status == protocol.StatusOK
	}
	require.True(t, joined, "m3 joins once the join rate allows")
	var last protocol.HeartbeatResponse
	for deadline := time.Now().Add(8 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		last = joinOnce(t, e.c, "orders", "workers", "m4")
		if strings.Contains(last.Message, "limits.members-per-group") {
			break
		}
	}
	require.Equal(t, protocol.StatusRetry, last.Status, "m4 was not refused within 8 s: %s", last.Message)
	require.Contains(t, last.Message, "limits.members-per-group")
	require.Len(t, e.members(t), 3)
	require.GreaterOrEqual(t, limitRejections(t, e, "limits.joins-per-second"), 1.0)
	require.GreaterOrEqual(t, limitRejections(t, e, "limits.members-per-group"), 1.0)
}
