package api

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A mistyped field in any request body is answered 400 MALFORMED_REQUEST
// with a message naming the JSON field and the JSON shape it must have,
// never a Go type (membersdk/protocol's TestWrongTypeErrorsNameTheJSONFieldAndShape
// walks every field of every body; this checks each route passes it on).
func TestWrongTypeAnswersNameTheJSONField(t *testing.T) {
	const g = "/coord/v1/streams/orders/groups/workers"
	goType := regexp.MustCompile(`protocol\.|\b(u?int(8|16|32|64)?|bool|struct)\b|\[\]|\*`)
	cases := []struct {
		name, method, path, body, want string
	}{
		{"heartbeat", "POST", hbPath, hb(`"runtimeConsumerCapacity":{"runtimeMaxConcurrency":4,"availableConcurrency":4}`, `"runtimeConsumerCapacity":1`),
			`field "runtimeConsumerCapacity" must be a JSON object {"runtimeMaxConcurrency": …, "availableConcurrency": …}, got JSON number`},
		{"heartbeat shard", "POST", hbPath, hb(`"ownedShards":[]`, `"ownedShards":[{"shardIndex":true}]`),
			`field "ownedShards.shardIndex" must be a JSON integer (no fraction, no quotes), got JSON boolean`},
		{"create stream", "POST", "/coord/v1/streams/orders", `{"initialShardCount":"4","requestedBy":"ops"}`,
			`field "initialShardCount" must be a JSON integer (no fraction, no quotes), got JSON string`},
		{"create group", "POST", g, `{"requestedBy":7}`, `field "requestedBy" must be a JSON string, got JSON number`},
		{"delete group", "DELETE", g, `{"requestedBy":"ops","reason":"r","force":"yes"}`, `field "force" must be true or false, got JSON string`},
		{"scale", "POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":[8],"requestedBy":"ops"}`,
			`field "targetShardCount" must be a JSON integer (no fraction, no quotes), got JSON array`},
		{"rollback", "POST", g + "/migrations/r-1/rollback", `{"requestedBy":"ops","reason":{}}`, `field "reason" must be a JSON string, got JSON object`},
		{"whole body", "POST", "/coord/v1/streams/orders/scale", `[1]`, `the body must be a JSON object {"targetShardCount": …`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			body := h.assertRejected(h.do(tc.method, tc.path, tc.body), 400, protocol.CodeMalformedRequest)
			require.Contains(t, body.Message, tc.want)
			require.NotRegexp(t, goType, body.Message)
		})
	}
}
