package api

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/api/openapi"
	"github.com/redisstream/coordinator/api/routedocs"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The committed document describes static membership (instanceId, memberEpoch -2,
// UNRELEASED_INSTANCE_ID, heldUntil) and the move cap, and lists the heartbeat statuses, each
// one the metrics count under its own name (statusLabel).
func TestOpenAPIDescribesStaticMembershipAndStatuses(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Description string   `json:"description"`
					Enum        []string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(openapi.Committed(), &doc))
	s := doc.Components.Schemas
	require.Contains(t, s["HeartbeatRequest"].Properties["instanceId"].Description, "UNRELEASED_INSTANCE_ID")
	require.Contains(t, s["HeartbeatRequest"].Properties["memberEpoch"].Description, "-2 temporary leave")
	require.Contains(t, s["HeartbeatResponse"].Properties["status"].Enum, "UNRELEASED_INSTANCE_ID")
	require.Contains(t, s["MemberView"].Properties["heldUntil"].Description, "temporary leave")
	require.Contains(t, s["MemberView"].Properties["targetAssignment"].Description, "assignment.max-moves-per-round")
	for _, st := range routedocs.StatusEnum() {
		require.NotEqual(t, "OTHER", statusLabel(protocol.Status(st.(string))), "status %s", st)
	}
}
