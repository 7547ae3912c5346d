package api

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// hb returns the reference heartbeat body with one replacement applied.
func hb(old, new string) string {
	if !strings.Contains(hbBody, old) {
		panic("hb: " + old + " not in body")
	}
	return strings.Replace(hbBody, old, new, 1)
}

// Bad input at the HTTP edge (issue 5, point 3): each class gets its 4xx and
// the SPEC error body, and the Service is never called.
func TestBadHeartbeatInput(t *testing.T) {
	const owned = `"ownedShards":[]`
	cases := []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"malformed json", hbPath, `{"protocolVersion":1,`, 400, protocol.CodeMalformedRequest},
		{"not json", hbPath, `hello`, 400, protocol.CodeMalformedRequest},
		{"empty body", hbPath, ``, 400, protocol.CodeMalformedRequest},
		{"array body", hbPath, `[1,2]`, 400, protocol.CodeMalformedRequest},
		{"trailing data", hbPath, hbBody + `{}`, 400, protocol.CodeMalformedRequest},
		{"wrong type epoch", hbPath, hb(`"memberEpoch":0`, `"memberEpoch":"0"`), 400, protocol.CodeMalformedRequest},
		{"wrong type shards", hbPath, hb(owned, `"ownedShards":{"shardIndex":0}`), 400, protocol.CodeMalformedRequest},
		{"fractional epoch", hbPath, hb(`"memberEpoch":0`, `"memberEpoch":1.5`), 400, protocol.CodeMalformedRequest},
		{"missing capacity", hbPath, hb(`"runtimeConsumerCapacity":{"runtimeMaxConcurrency":4,"availableConcurrency":4},`, ``), 400, protocol.CodeMalformedRequest},
		{"missing requestId", hbPath, hb(`"requestId":"r-1",`, ``), 400, protocol.CodeMalformedRequest},
		{"overflowing epoch", hbPath, hb(`"memberEpoch":0`, `"memberEpoch":99999999999999999999`), 400, protocol.CodeMalformedRequest},
		{"overflowing shard", hbPath, hb(owned, `"ownedShards":[{"shardIndex":1e40}]`), 400, protocol.CodeMalformedRequest},
		{"shard beyond int32", hbPath, hb(owned, `"ownedShards":[{"shardIndex":3000000000}]`), 400, protocol.CodeInvalidArgument},
		{"negative shard", hbPath, hb(owned, `"ownedShards":[{"shardIndex":-1}]`), 400, protocol.CodeInvalidArgument},
		{"negative metadataVersion", hbPath, hb(`"metadataVersion":0`, `"metadataVersion":-3`), 400, protocol.CodeInvalidArgument},
		{"negative capacity", hbPath, hb(`"availableConcurrency":4`, `"availableConcurrency":-4`), 400, protocol.CodeInvalidArgument},
		{"negative inFlight", hbPath, hb(`"revokingShards":[]`, `"revokingShards":[{"shard":{"shardIndex":1},"state":"DRAINING","inFlight":-1}]`), 400, protocol.CodeInvalidArgument},
		{"negative pending", hbPath, hb(`"shardProgress":[]`, `"shardProgress":[{"shard":{"shardIndex":1},"streamKey":"orders:1","pendingCount":-1}]`), 400, protocol.CodeInvalidArgument},
		{"unknown revoke state", hbPath, hb(`"revokingShards":[]`, `"revokingShards":[{"shard":{"shardIndex":1},"state":"GONE","inFlight":0}]`), 400, protocol.CodeInvalidArgument},
		{"lowercase revoke state", hbPath, hb(`"revokingShards":[]`, `"revokingShards":[{"shard":{"shardIndex":1},"state":"revoked","inFlight":0}]`), 400, protocol.CodeInvalidArgument},
		{"duplicate owned shard", hbPath, hb(owned, `"ownedShards":[{"shardIndex":2},{"shardIndex":1},{"shardIndex":2}]`), 400, protocol.CodeInvalidArgument},
		{"duplicate owned shard, long list", hbPath, hb(owned, `"ownedShards":`+shardList(100, 57)), 400, protocol.CodeInvalidArgument},
		{"duplicate revoking shard", hbPath, hb(`"revokingShards":[]`, `"revokingShards":[{"shard":{"shardIndex":1},"state":"REVOKED"},{"shard":{"shardIndex":1},"state":"DRAINING"}]`), 400, protocol.CodeInvalidArgument},
		{"huge requestId", hbPath, hb(`"requestId":"r-1"`, `"requestId":"`+strings.Repeat("x", 600)+`"`), 400, protocol.CodeMalformedRequest},
		{"huge streamKey", hbPath, hb(`"shardProgress":[]`, `"shardProgress":[{"shard":{"shardIndex":1},"streamKey":"`+strings.Repeat("k", 600)+`"}]`), 400, protocol.CodeInvalidArgument},
		{"incarnationId too long", hbPath, hb(owned, owned+`,"incarnationId":"`+strings.Repeat("i", protocol.MaxIncarnationIDLength+1)+`"`), 400, protocol.CodeInvalidArgument},
		{"incarnationId blank", hbPath, hb(owned, owned+`,"incarnationId":"   "`), 400, protocol.CodeInvalidArgument},
		{"incarnationId control", hbPath, hb(owned, owned+`,"incarnationId":"a\u0007b"`), 400, protocol.CodeInvalidArgument},
		{"incarnationId not a string", hbPath, hb(owned, owned+`,"incarnationId":7`), 400, protocol.CodeMalformedRequest},
		{"incarnationId huge", hbPath, hb(owned, owned+`,"incarnationId":"`+strings.Repeat("i", 600)+`"`), 400, protocol.CodeMalformedRequest},
		{"body over limit", hbPath, hb(owned, `"ownedShards":`+shardList(70_000, -1)), 400, protocol.CodePayloadTooLarge},
		{"path braces encoded", strings.Replace(hbPath, "orders", "%7Borders%7D", 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path braces raw", strings.Replace(hbPath, "orders", "{orders}", 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path bad escape", strings.Replace(hbPath, "workers", "a%zz", 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path NUL in group", strings.Replace(hbPath, "workers", "a%00b", 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path newline in member", strings.Replace(hbPath, "10.0.3.7-m0", "a%0Ab", 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path DEL in stream", strings.Replace(hbPath, "orders", "a%7Fb", 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path C1 control in group", strings.Replace(hbPath, "workers", "a%C2%85b", 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path invalid UTF-8", strings.Replace(hbPath, "workers", "a%FFb", 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path blank group", strings.Replace(hbPath, "workers", "%20%20", 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path unicode too long", strings.Replace(hbPath, "workers", strings.Repeat("%EC%82%AC", protocol.MaxNameLength/3+1), 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path empty stream", strings.Replace(hbPath, "orders", "", 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path empty member", strings.Replace(hbPath, "10.0.3.7-m0", "", 1), hbBody, 400, protocol.CodeInvalidArgument},
		{"path name too long", strings.Replace(hbPath, "orders", strings.Repeat("o", protocol.MaxNameLength+1), 1), hbBody, 400, protocol.CodeInvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{BodyLimit: 1 << 20})
			if tc.code == protocol.CodePayloadTooLarge {
				h.listen()
			}
			h.assertRejected(h.do("POST", tc.path, tc.body), tc.status, tc.code)
		})
	}
}

// shardList is a JSON list of n shards; dup ≥ 0 repeats shard dup at the end.
func shardList(n, dup int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"shardIndex":%d}`, i)
	}
	if dup >= 0 {
		fmt.Fprintf(&b, `,{"shardIndex":%d}`, dup)
	}
	b.WriteByte(']')
	return b.String()
}

// A shard list longer than protocol.MaxShardList is refused even when the
// body fits a (raised) body limit.
func TestHugeShardListUnderBodyLimit(t *testing.T) {
	h := newHarness(t, Config{BodyLimit: 8 << 20})
	h.assertRejected(h.do("POST", hbPath, hb(`"ownedShards":[]`, `"ownedShards":`+shardList(protocol.MaxShardList+1, -1))), 400, protocol.CodeMalformedRequest)
}

func TestCompressedBodyRefused(t *testing.T) {
	h := newHarness(t, Config{})
	h.assertRejected(h.do("POST", hbPath, hbBody, "Content-Encoding", "gzip"), 415, protocol.CodeUnsupportedEncoding)
}

func TestBadAdminInput(t *testing.T) {
	const g = "/coord/v1/streams/orders/groups/workers"
	cases := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"create: malformed", "POST", "/coord/v1/streams/orders", `{"requestedBy":`, 400, protocol.CodeMalformedRequest},
		{"create: empty body", "POST", "/coord/v1/streams/orders", ``, 400, protocol.CodeMalformedRequest},
		{"create: wrong type", "POST", "/coord/v1/streams/orders", `{"initialShardCount":"4","requestedBy":"ops"}`, 400, protocol.CodeMalformedRequest},
		{"create: overflow", "POST", "/coord/v1/streams/orders", `{"initialShardCount":1e100,"requestedBy":"ops"}`, 400, protocol.CodeMalformedRequest},
		{"create: zero shards", "POST", "/coord/v1/streams/orders", `{"initialShardCount":0,"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"create: negative shards", "POST", "/coord/v1/streams/orders", `{"initialShardCount":-2,"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"create: too many shards", "POST", "/coord/v1/streams/orders", `{"initialShardCount":4097,"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"create: no requestedBy", "POST", "/coord/v1/streams/orders", `{"initialShardCount":4}`, 400, protocol.CodeInvalidArgument},
		{"create: blank requestedBy", "POST", "/coord/v1/streams/orders", `{"requestedBy":"  "}`, 400, protocol.CodeInvalidArgument},
		{"create: null body", "POST", "/coord/v1/streams/orders", `null`, 400, protocol.CodeInvalidArgument},
		{"create: control char", "POST", "/coord/v1/streams/orders", `{"requestedBy":"ops\nINFO fake log line"}`, 400, protocol.CodeInvalidArgument},
		{"create: huge reason", "POST", "/coord/v1/streams/orders", `{"requestedBy":"ops","reason":"` + strings.Repeat("r", 2000) + `"}`, 400, protocol.CodeInvalidArgument},
		{"create: braces", "POST", "/coord/v1/streams/%7Bo%7D", `{"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"create: empty name", "POST", "/coord/v1/streams/", `{"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"create: brace raw", "POST", "/coord/v1/streams/a}b", `{"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"create: tab", "POST", "/coord/v1/streams/a%09b", `{"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"scale: missing target", "POST", "/coord/v1/streams/orders/scale", `{"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"scale: negative target", "POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":-1,"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"scale: target too big", "POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":100000,"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"scale: target wrong type", "POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":[8],"requestedBy":"ops"}`, 400, protocol.CodeMalformedRequest},
		{"scale: no requestedBy", "POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":8}`, 400, protocol.CodeInvalidArgument},
		{"assignment: unknown mode", "POST", g + "/assignment", `{"assignment":"fair","requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"assignment: missing", "POST", g + "/assignment", `{"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"assignment: wrong type", "POST", g + "/assignment", `{"assignment":2,"requestedBy":"ops"}`, 400, protocol.CodeMalformedRequest},
		{"assignment: no requestedBy", "POST", g + "/assignment", `{"assignment":"capacity"}`, 400, protocol.CodeInvalidArgument},
		{"create group: unknown assignment", "POST", g, `{"requestedBy":"ops","assignment":"weighted"}`, 400, protocol.CodeInvalidArgument},
		{"delete: no body", "DELETE", g, ``, 400, protocol.CodeMalformedRequest},
		{"delete: no requestedBy", "DELETE", g, `{"reason":"x","force":true}`, 400, protocol.CodeInvalidArgument},
		{"delete: force wrong type", "DELETE", g, `{"requestedBy":"ops","force":"yes"}`, 400, protocol.CodeMalformedRequest},
		{"delete: bad group", "DELETE", "/coord/v1/streams/orders/groups/%00", `{"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"group: bad stream", "GET", "/coord/v1/streams/a%7Bb/groups/workers", ``, 400, protocol.CodeInvalidArgument},
		{"routing: bad group", "GET", "/coord/v1/streams/orders/groups/%0D%0A/producer-routing", ``, 400, protocol.CodeInvalidArgument},
		{"migration: bad id", "GET", g + "/migrations/%1B%5B31m", ``, 400, protocol.CodeInvalidArgument},
		{"rollback: bad id", "POST", g + "/migrations/a%00b/rollback", `{"requestedBy":"ops"}`, 400, protocol.CodeInvalidArgument},
		{"rollback: no requestedBy", "POST", g + "/migrations/rs-1/rollback", `{}`, 400, protocol.CodeInvalidArgument},
		{"monitor: bad group", "GET", "/coord/v1/monitoring/streams/orders/groups/a%07b/members", ``, 400, protocol.CodeInvalidArgument},
		{"monitor: empty group", "GET", "/coord/v1/monitoring/streams/orders/groups//assignments", ``, 400, protocol.CodeInvalidArgument},
		{"debug: bad stream", "GET", "/debug/streams/%7B%7D/groups/g", ``, 400, protocol.CodeInvalidArgument},
		{"create: body over limit", "POST", "/coord/v1/streams/orders", `{"requestedBy":"ops","reason":"` + strings.Repeat("r", 1<<20) + `"}`, 400, protocol.CodePayloadTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			if tc.code == protocol.CodePayloadTooLarge {
				h.listen()
			}
			h.assertRejected(h.do(tc.method, tc.path, tc.body), tc.status, tc.code)
		})
	}
}

// Bodies between the limit and the hard limit are read and refused with 400
// by the server itself (works even through app.Test); far larger ones are cut
// off by fasthttp: the answer is a 400 with the SPEC body if the client gets
// to read it, otherwise the connection is reset. Either way the Service is
// not called.
func TestBodyLimitTiers(t *testing.T) {
	h := newHarness(t, Config{BodyLimit: 1000})
	h.assertRejected(h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops","reason":"`+strings.Repeat("r", 2000)+`"}`), 400, protocol.CodePayloadTooLarge)
	require.Equal(t, 201, h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`).status, "the server still serves")

	h = newHarness(t, Config{BodyLimit: 1000})
	h.listen()
	req, err := http.NewRequest("POST", h.base+"/coord/v1/streams/orders", strings.NewReader(`{"requestedBy":"`+strings.Repeat("r", 1<<20)+`"}`))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		defer resp.Body.Close()
		require.Equal(t, 400, resp.StatusCode)
		b, _ := io.ReadAll(resp.Body)
		require.JSONEq(t, `{"status":"BAD_REQUEST","errorCode":"PAYLOAD_TOO_LARGE","message":"request body is larger than the server's body limit (http.body-limit)"}`, string(b))
	}
	require.Empty(t, h.fake.Calls())
}

func TestEmptySegmentWithLargeBodyIs400(t *testing.T) {
	h := newHarness(t, Config{BodyLimit: 10})
	h.assertRejected(h.do("POST", "/coord/v1/streams/", `{"requestedBy":"ops"}`), 400, protocol.CodePayloadTooLarge)
}

// Names the reference accepts (issue 9): ':' , spaces, Unicode, '/', braces
// outside a stream prefix, URL-escaped in the path, reach the service
// decoded, exactly once.
func TestReferenceNamesAccepted(t *testing.T) {
	cases := []struct{ path, call string }{
		{"/coord/v1/streams/orders:v2/groups/svc:workers/producer-routing", "ProducerRouting orders:v2/svc:workers"},
		{"/coord/v1/streams/orders%3Av2/groups/svc%3Aworkers/producer-routing", "ProducerRouting orders:v2/svc:workers"},
		{"/coord/v1/streams/my%20orders/groups/%EC%82%AC%EC%9A%A9%EC%9E%90/producer-routing", "ProducerRouting my orders/사용자"},
		{"/coord/v1/streams/a%2Fb/groups/%7Bg%7D/producer-routing", "ProducerRouting a/b/{g}"},
		{"/coord/v1/streams/a%252Fb/groups/w%C3%B6rkers/producer-routing", "ProducerRouting a%2Fb/wörkers"},
		{"/coord/v1/monitoring/streams/orders:v2/groups/svc:workers/members", "Members orders:v2/svc:workers"},
	}
	for _, tc := range cases {
		h := newHarness(t, Config{})
		r := h.do("GET", tc.path, "")
		require.Equal(t, 200, r.status, "%s: %s", tc.path, r.body)
		require.Equal(t, []string{tc.call}, h.fake.Calls(), tc.path)
	}
	h := newHarness(t, Config{})
	member := "/coord/v1/streams/orders:v2/groups/svc:workers/members/pod%20a:m0/heartbeat"
	body := strings.Replace(hbBody, `"memberId":"10.0.3.7-m0"`, `"memberId":"pod a:m0"`, 1)
	r := h.do("POST", member, body)
	require.Equal(t, 200, r.status, "%s", r.body)
	require.Len(t, h.fake.Calls(), 1)
	require.Contains(t, h.fake.Calls()[0], "orders:v2/svc:workers")
}
