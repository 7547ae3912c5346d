package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

const migrationJSON = `{"reshardingId":"rs-7","streamPrefix":"orders","consumerGroup":"billing","fromShardCount":4,"toShardCount":2,
 "state":"DRAINING","createdAt":"2026-12-01T10:00:00Z","updatedAt":"2026-12-01T10:05:00Z","requestedBy":"alice","reason":"quiet season",
 "metadataVersion":5,"waiting":"shard 3 to drain (billing: pending 2)",
 "shards":[{"shardIndex":2,"streamKey":"orders:2","change":"REMOVE","state":"RETIRED","retiredKey":"orders:2:retired:rs-7"},
           {"shardIndex":3,"streamKey":"orders:3","change":"REMOVE","state":"DRAINING","blockedBy":[{"consumerGroup":"billing","pending":2,"lag":-1}]}],
 "history":[{"state":"PREPARING","at":"2026-12-01T10:00:00Z","node":"n1"},{"state":"ACTIVE","at":"2026-12-01T10:00:01Z","node":"n1","note":"metadataVersion 5"},
            {"state":"DRAINING","at":"2026-12-01T10:00:02Z","node":"n1"}]}`

func TestScaleSendsTargetAndRendersMigrations(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("POST", "/coord/v1/streams/orders/scale", 202, `{"streamPrefix":"orders","targetShardCount":2,"affectedConsumerGroups":["billing"],"migrations":[`+migrationJSON+`]}`)
	r := ctl(t, "--url", f.URL, "--requested-by", "alice", "scale", "orders", "2", "--reason", "quiet season")
	require.Equal(t, 0, r.code, r.stderr)
	s := f.last(t)
	require.Equal(t, float64(2), s.Body["targetShardCount"])
	require.Equal(t, "alice", s.Body["requestedBy"])
	require.Equal(t, "quiet season", s.Body["reason"])
	require.Contains(t, r.stdout, "Resharding of orders to 2 shards accepted; groups: billing.")
	require.Regexp(t, `rs-7\s+billing\s+4\s+2\s+DRAINING\s+alice`, r.stdout)

	// Scale to 0 is allowed (drain everything); the server decides on errors.
	f.on("POST", "/coord/v1/streams/orders/scale", 409, `{"status":"CONFLICT","errorCode":"ACTIVE_MIGRATION_EXISTS","message":"migration rs-7 is active"}`)
	r = ctl(t, "--url", f.URL, "scale", "orders", "0", "--yes")
	require.Equal(t, 1, r.code)
	require.Equal(t, float64(0), f.last(t).Body["targetShardCount"])
	require.Contains(t, r.stderr, "migration rs-7 is active (HTTP 409 ACTIVE_MIGRATION_EXISTS)")
}

func TestScaleToZeroAsksFirst(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("POST", "/coord/v1/streams/orders/scale", 202, `{"streamPrefix":"orders","targetShardCount":0,"affectedConsumerGroups":[],"migrations":[]}`)
	scale := func(terminal bool, stdin string, args ...string) result {
		var out, errOut bytes.Buffer
		a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, interactive: func() bool { return terminal }}
		code := runApp(t.Context(), a, append([]string{"--url", f.URL, "scale", "orders", "0"}, args...))
		return result{code, out.String(), errOut.String()}
	}

	// No terminal, no --yes: refused, nothing sent.
	r := scale(false, "y\n")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "add --yes to scale to 0")
	require.Empty(t, f.requests())

	// A terminal: the answer decides.
	r = scale(true, "n\n")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "Scale orders to 0 shards?")
	require.Contains(t, r.stderr, "not scaled")
	require.Empty(t, f.requests())
	r = scale(true, "")
	require.Equal(t, 1, r.code, "no answer is no")
	require.Empty(t, f.requests())

	r = scale(true, "y\n")
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, f.requests(), 1)
	require.Equal(t, float64(0), f.last(t).Body["targetShardCount"])

	// --yes (or -y) skips the question.
	r = scale(false, "", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stderr, "[y/N]")
	r = scale(false, "", "-y")
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, f.requests(), 3)
}

func TestStreamsDeleteSendsBody(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("DELETE", "/coord/v1/streams/orders", 200, `{"streamPrefix":"orders","deleted":true}`)
	r := ctl(t, "--url", f.URL, "--requested-by", "alice", "streams", "delete", "orders", "--reason", "retired")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "Stream orders deleted.")
	s := f.last(t)
	require.Equal(t, "DELETE /coord/v1/streams/orders", s.Method+" "+s.Path)
	require.Equal(t, "alice", s.Body["requestedBy"])
	require.Equal(t, "retired", s.Body["reason"])
}

func TestMigrationsTableAndDetail(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("GET", "/coord/v1/monitoring/streams/orders/groups/billing/migrations", 200,
		`{"migrations":[`+migrationJSON+`,{"reshardingId":"rs-6","fromShardCount":2,"toShardCount":4,"state":"DEPRECATED"}],"activeReshardingId":"rs-7"}`)
	f.on("GET", "/coord/v1/streams/orders/groups/billing/migrations/rs-7", 200, migrationJSON)
	f.on("GET", "/coord/v1/streams/orders/groups/billing/migrations/rs-0", 404, `{"status":"NOT_FOUND","errorCode":"MIGRATION_NOT_FOUND","message":"migration rs-0 not found"}`)
	f.on("POST", "/coord/v1/streams/orders/groups/billing/migrations/rs-7/rollback", 202, strings.Replace(migrationJSON, `"state":"DRAINING"`, `"state":"ROLLING_BACK","rollbackRequestedBy":"bob","rollbackReason":"too slow"`, 1))
	f.on("POST", "/coord/v1/streams/orders/groups/billing/migrations/rs-6/rollback", 422, `{"status":"UNPROCESSABLE_ENTITY","errorCode":"ROLLBACK_NOT_ALLOWED","message":"rs-6 is DEPRECATED: its removed shards are retired"}`)

	r := ctl(t, "--url", f.URL, "migrations", "orders", "billing")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `rs-7 \*\s+billing\s+4\s+2\s+DRAINING`, r.stdout)
	require.Regexp(t, `rs-6\s+-\s+2\s+4\s+completed \(DEPRECATED\)`, r.stdout)
	require.Contains(t, r.stdout, "active: rs-7")

	r = ctl(t, "--url", f.URL, "migration", "orders", "billing", "rs-7")
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{"4 → 2", "quiet season", "shard 3 to drain", "orders:2:retired:rs-7", "billing(pending 2, lag ?)", "SHARDS", "HISTORY"} {
		require.Contains(t, r.stdout, want)
	}
	require.Regexp(t, `3\s+orders:3\s+REMOVE\s+DRAINING`, r.stdout)
	require.Regexp(t, `2026-12-01T10:00:01Z\s+ACTIVE\s+n1\s+metadataVersion 5`, r.stdout)

	r = ctl(t, "--url", f.URL, "-o", "json", "migration", "orders", "billing", "rs-7")
	require.Equal(t, 0, r.code)
	var m protocol.Migration
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &m))
	require.Len(t, m.History, 3)

	r = ctl(t, "--url", f.URL, "migration", "orders", "billing", "rs-0")
	require.Equal(t, 3, r.code)

	r = ctl(t, "--url", f.URL, "--requested-by", "bob", "rollback", "orders", "billing", "rs-7", "--reason", "too slow")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, map[string]any{"requestedBy": "bob", "reason": "too slow"}, f.last(t).Body)
	require.Contains(t, r.stdout, "Rollback of rs-7 accepted.")
	require.Contains(t, r.stdout, "ROLLING_BACK")
	require.Contains(t, r.stdout, "too slow")

	r = ctl(t, "--url", f.URL, "rollback", "orders", "billing", "rs-6")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "its removed shards are retired (HTTP 422 ROLLBACK_NOT_ALLOWED)")
}

const offsetsJSON = `{"streamPrefix":"orders","consumerGroup":"billing","shardCount":2,"metadataVersion":1,"shards":[
 {"shardIndex":0,"streamKey":"orders:0","exists":true,"length":5,"lastGeneratedId":"5-0","groupExists":true,"lastDeliveredId":"4-0","entriesRead":4,"lag":1,"pending":2,
  "consumers":{"count":2,"names":[{"name":"m1","pending":2,"idleMs":10},{"name":"m2","pending":0,"idleMs":9000}]},"memoryUsage":2048,"owner":"m1","targetOwner":"m2"},
 {"shardIndex":1,"streamKey":"orders:1","exists":true,"length":0,"lastGeneratedId":"0-0","groupExists":true,"lastDeliveredId":"0-0","entriesRead":-1,"lag":-1,"pending":0,
  "consumers":{"count":0,"names":[]},"memoryUsage":-1,"owner":"","targetOwner":"m1"}]}`

func TestOffsetsAndMessages(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("GET", "/coord/v1/streams/orders/groups/billing/offsets", 200, offsetsJSON)
	r := ctl(t, "--url", f.URL, "offsets", "orders", "billing")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `0\s+m1\s+m2\s+5\s+5-0\s+4-0\s+4\s+1\s+2\s+2 m1\(2\),m2\(0\)\s+2.0KiB`, r.stdout)
	require.Regexp(t, `1\s+-\s+m1\s+0\s+0-0\s+0-0\s+\?\s+\?\s+0\s+0\s+\?`, r.stdout)

	f.on("GET", "/coord/v1/streams/orders/shards/1/messages", 200,
		`{"streamPrefix":"orders","shardIndex":1,"streamKey":"orders:1","messages":[{"id":"1-0","fields":{"b":"two words","a":"x"}},{"id":"2-0","fields":{"k":"v"}}],"nextCursor":"2-0"}`)
	r = ctl(t, "--url", f.URL, "messages", "orders", "1", "--count", "2")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "count=2&from=-", f.last(t).Query)
	require.Regexp(t, `1-0\s+a=x b="two words"`, r.stdout)
	require.Contains(t, r.stderr, "more: streamctl messages orders 1 --from 2-0")

	r = ctl(t, "--url", f.URL, "messages", "orders", "1", "--from", "1700000000000-3")
	require.Equal(t, 0, r.code)
	require.Equal(t, "from=1700000000000-3", f.last(t).Query, "count left to the server's default")
}

// --pages 0 follows nextCursor until the end.
func TestMessagesFollowsCursor(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	pages := map[string]string{
		"-":   `{"messages":[{"id":"1-0","fields":{"n":"1"}}],"nextCursor":"1-0"}`,
		"1-0": `{"messages":[{"id":"2-0","fields":{"n":"2"}}],"nextCursor":"2-0"}`,
		"2-0": `{"messages":[{"id":"3-0","fields":{"n":"3"}}],"nextCursor":null}`,
	}
	srv := newPagedAPI(t, pages)
	_ = f
	r := ctl(t, "--url", srv, "-o", "json", "messages", "orders", "0", "--count", "1", "--pages", "0")
	require.Equal(t, 0, r.code, r.stderr)
	var resp protocol.MessagesResponse
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &resp))
	require.Len(t, resp.Messages, 3)
	require.Nil(t, resp.NextCursor)
	r = ctl(t, "--url", srv, "messages", "orders", "0", "--count", "1", "--pages", "2")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "2-0")
	require.NotContains(t, r.stdout, "3-0")
	require.Contains(t, r.stderr, "--from 2-0")
}

func TestRoutingKeys(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("GET", "/coord/v1/streams/orders/groups/billing/producer-routing", 200, string(mustJSON(protocol.Routing("orders", "billing", 8, 3))))
	r := ctl(t, "--url", f.URL, "routing", "orders", "billing", "order-123", "hello world")
	require.Equal(t, 0, r.code, r.stderr)
	// SPEC §6 test vectors for shardCount 8: order-123 → 5, "hello world" → 7.
	require.Regexp(t, `order-123\s+5\s+orders:5\s+\d+`, r.stdout)
	require.Regexp(t, `hello world\s+7\s+orders:7\s+4453`, r.stdout)

	r = ctl(t, "--url", f.URL, "-o", "json", "routing", "orders", "billing", "customer:00017")
	require.Equal(t, 0, r.code)
	var out struct {
		MetadataVersion int64
		Routes          []struct {
			Key        string
			ShardIndex int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.Equal(t, int64(3), out.MetadataVersion)
	require.Equal(t, 4, out.Routes[0].ShardIndex)

	r = ctl(t, "--url", f.URL, "routing", "orders", "billing")
	require.Equal(t, 0, r.code)
	require.Regexp(t, `0\s+orders:0\s+8578`, r.stdout)
}

func TestWatchFrames(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("GET", "/coord/v1/monitoring/streams/orders/groups/billing", 200,
		`{"streamPrefix":"orders","consumerGroup":"billing","state":"RECONCILING","groupEpoch":4,"assignmentEpoch":4,"metadataVersion":5,"shardCount":2,
		  "activeMigration":{"reshardingId":"rs-7","fromShardCount":4,"toShardCount":2,"state":"DRAINING","waiting":"shard 3 to drain"}}`)
	f.on("GET", "/coord/v1/streams/orders/groups/billing/offsets", 200, offsetsJSON)
	f.on("GET", "/coord/v1/monitoring/streams/orders/groups/billing/members", 200,
		`{"members":[{"memberId":"m1","state":"ACTIVE","memberEpoch":4,"currentAssignment":[{"shardIndex":0}],"targetAssignment":[{"shardIndex":1}],
		  "runtimeConsumerCapacity":{"runtimeMaxConcurrency":4,"availableConcurrency":3},"memberLeaseExpiresAt":"2999-01-01T00:00:00Z","transport":"redis"}]}`)
	r := ctl(t, "--url", f.URL, "watch", "orders", "billing", "--interval", "100ms", "--count", "2")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, 2, strings.Count(r.stdout, "orders/billing  RECONCILING  groupEpoch 4"))
	require.Equal(t, 1, strings.Count(r.stdout, "\n---\n"), "frames appended when not a terminal")
	require.Contains(t, r.stdout, "migration rs-7: 4 → 2 DRAINING (waiting for shard 3 to drain)")
	require.Regexp(t, `m1\s+-\s+ACTIVE\s+4\s+0\s+1\s+-\s+-\s+3/4`, r.stdout)
	require.Regexp(t, `TRANSPORT\n.*m1 .*\sredis\n`, r.stdout, "the member's transport, last column")
	require.NotContains(t, r.stdout, "\x1b[")

	r = ctl(t, "--url", f.URL, "-o", "json", "watch", "orders", "billing", "--interval", "100ms", "--count", "2")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 2)
	var fr frame
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &fr))
	require.Equal(t, "m2", fr.Offsets.Shards[0].TargetOwner)

	// A group that does not exist fails at once with "not found".
	r = ctl(t, "--url", f.URL, "watch", "orders", "nope", "--count", "1")
	require.Equal(t, 3, r.code)
}

// In a terminal the frame is redrawn in place: cursor home, lines cleared.
func TestWatchRedrawsInPlace(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("GET", "/coord/v1/monitoring/streams/orders/groups/billing", 200, `{"streamPrefix":"orders","consumerGroup":"billing","state":"STABLE","shardCount":2}`)
	f.on("GET", "/coord/v1/streams/orders/groups/billing/offsets", 200, offsetsJSON)
	f.on("GET", "/coord/v1/monitoring/streams/orders/groups/billing/members", 200, `{"members":[]}`)
	a := &app{}
	var out strings.Builder
	a.stdout, a.stderr = &out, &out
	a.flags.output = "table"
	a.c = &client{base: f.URL, http: newHTTPClient(5e9)}
	require.NoError(t, a.watch(t.Context(), "orders", "billing", 100e6, 2, true))
	require.Equal(t, 2, strings.Count(out.String(), "\x1b[H"))
	require.Equal(t, 2, strings.Count(out.String(), "\x1b[J"))
	require.Contains(t, out.String(), "\x1b[K\n")
}

func TestStreamsAndGroupsCommands(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("GET", "/coord/v1/monitoring/groups", 200, `{"groups":[
		{"streamPrefix":"payments","consumerGroup":"ledger","state":"STABLE","groupEpoch":2,"assignmentEpoch":2,"metadataVersion":1,"shardCount":4,"targetAssignmentSummary":{"m1":4}},
		{"streamPrefix":"orders","consumerGroup":"billing","state":"STABLE","groupEpoch":3,"assignmentEpoch":3,"metadataVersion":2,"shardCount":8,"targetAssignmentSummary":{"m1":4,"m2":4},"currentAssignmentSummary":{"m1":4,"m2":3}},
		{"streamPrefix":"orders","consumerGroup":"audit","state":"EMPTY","metadataVersion":2,"shardCount":8}]}`)
	f.on("GET", "/coord/v1/streams", 200, `{"streams":[
		{"streamPrefix":"orders","shardCount":8,"consumedShardCount":10,"metadataVersion":2,"createdAt":"2026-12-01T10:00:00Z","activeMigration":{"reshardingId":"rs-1","fromShardCount":10,"toShardCount":8,"state":"DRAINING"}},
		{"streamPrefix":"payments","shardCount":4,"consumedShardCount":4,"metadataVersion":1,"createdAt":"2026-12-01T10:00:00Z","activeMigration":null}]}`)
	f.on("GET", "/coord/v1/streams/orders", 200, `{"streamPrefix":"orders","shardCount":8,"consumedShardCount":8,"metadataVersion":2,"streamKeyPattern":"orders:{shardIndex}","createdBy":"ops","activeMigration":null,"groups":["audit","billing"]}`)
	f.on("GET", "/coord/v1/streams/ghost", 404, `{"status":"NOT_FOUND","errorCode":"STREAM_NOT_FOUND","message":"stream ghost not found"}`)
	f.on("POST", "/coord/v1/streams/orders/groups/fraud", 201, `{"streamPrefix":"orders","consumerGroup":"fraud","state":"EMPTY","groupEpoch":1,"shardCount":8}`)
	f.on("DELETE", "/coord/v1/streams/orders/groups/audit", 200, `{"streamPrefix":"orders","consumerGroup":"audit","deleted":true}`)
	f.on("GET", "/coord/v1/monitoring/streams/orders/groups/billing", 200, `{"streamPrefix":"orders","consumerGroup":"billing","state":"STABLE","shardCount":8,"targetAssignmentSummary":{"m1":4,"m2":4},"currentAssignmentSummary":{"m1":4,"m2":3}}`)

	r := ctl(t, "--url", f.URL, "streams", "list")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `(?s)orders\s+8 \(\+2 draining\)\s+2\s+\S+\s+rs-1 10→8 DRAINING.*payments\s+4\s+1\s+\S+\s+-`, r.stdout)

	r = ctl(t, "--url", f.URL, "streams", "describe", "orders")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `shards:\s+8`, r.stdout)
	require.Contains(t, r.stdout, "audit")
	r = ctl(t, "--url", f.URL, "streams", "describe", "ghost")
	require.Equal(t, 3, r.code)
	require.Contains(t, r.stderr, "STREAM_NOT_FOUND")

	r = ctl(t, "--url", f.URL, "groups", "list", "orders")
	require.Equal(t, 0, r.code)
	require.NotContains(t, r.stdout, "payments")
	require.Regexp(t, `orders\s+billing\s+STABLE\s+8\s+3\s+3\s+2\s+2`, r.stdout)
	r = ctl(t, "--url", f.URL, "-o", "json", "groups", "list", "orders")
	var gs protocol.GroupsResponse
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &gs))
	require.Len(t, gs.Groups, 2)

	r = ctl(t, "--url", f.URL, "groups", "describe", "orders", "billing")
	require.Equal(t, 0, r.code)
	require.Regexp(t, `m2\s+4\s+3`, r.stdout)

	r = ctl(t, "--url", f.URL, "groups", "create", "orders", "fraud", "--reason", "new team")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "POST", f.last(t).Method)
	require.Equal(t, "new team", f.last(t).Body["reason"])
	require.Contains(t, r.stdout, "Group fraud of stream orders created on 8 shards")

	r = ctl(t, "--url", f.URL, "group", "delete", "orders", "audit", "--force", "--reason", "gone")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, map[string]any{"requestedBy": f.last(t).Body["requestedBy"], "reason": "gone", "force": true}, f.last(t).Body)
}

func TestUsersRevokeTokens(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("POST", "/coord/v1/auth/users/ci%20bot/revoke-tokens", 200, `{"username":"ci bot","tokenGeneration":3,"configured":false,"otherNodesWithinSeconds":10}`)
	r := ctl(t, "--url", f.URL, "--requested-by", "alice", "users", "revoke-tokens", "ci bot", "--reason", "leaked")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "Tokens of ci bot revoked (token generation 3)")
	require.Contains(t, r.stdout, "within 10s")
	require.Contains(t, r.stderr, `no user "ci bot" in auth.users`)
	s := f.last(t)
	require.Equal(t, "alice", s.Body["requestedBy"])
	require.Equal(t, "leaked", s.Body["reason"])
	r = ctl(t, "--url", f.URL, "users", "revoke-tokens")
	require.Equal(t, 2, r.code, "USER is required")
}
