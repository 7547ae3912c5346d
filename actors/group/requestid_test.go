package group

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The group's log lines name the id each request carries (a heartbeat's requestId, an admin
// request's X-Request-Id, a resize's migration id); the wire carries them across nodes
// (groupwire's TestWireCarriesRequestIDs).
func TestRequestIDOfEachRequest(t *testing.T) {
	for want, msg := range map[string]any{
		"hb-1":  &groupmsg.HeartbeatRequest{Request: protocol.HeartbeatRequest{RequestID: "hb-1"}},
		"req-7": &groupmsg.DeleteRequest{Force: true, RequestID: "req-7"},
		"rs-2":  &groupmsg.ResizeRequest{ShardCount: 8, MetadataVersion: 3, RequestID: "rs-2"},
		"req-8": &groupmsg.AssignmentRequest{RequestID: "req-8"},
		"req-9": &groupmsg.RebalancingRequest{Paused: true, RequestID: "req-9"},
		"":      &groupmsg.TouchRequest{},
	} {
		require.Equal(t, want, requestIDOf(msg), "%T", msg)
	}
}
