package routedocs

import (
	"github.com/redisstream/coordinator/api/openapi"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Fields are the descriptions the OpenAPI document gives fields whose meaning the Go types
// do not say: the heartbeat's special epochs and statuses, static membership (instanceId,
// memberEpoch -2, UNRELEASED_INSTANCE_ID) and what monitoring shows of it and of the move cap.
// docs/PROTOCOL.md is the full account.
var Fields = map[string]map[string]openapi.Field{
	"HeartbeatRequest": {
		"memberEpoch": {Description: "0 to join (or rejoin), -1 to leave, -2 temporary leave of a static member " +
			"(needs instanceId; its assignment is held for the next process with that instanceId for " +
			"coordination.static-session-timeout), else the last memberEpoch the coordinator answered"},
		"instanceId": {Description: "optional stable identity of a static member across restarts (e.g. the pod name), " +
			"at most 128 bytes. A new process joining with the instanceId of a member away on a temporary leave " +
			"gets exactly its assignment back; a join while another live member holds it is answered " +
			"UNRELEASED_INSTANCE_ID. Omitted: a dynamic member"},
	},
	"HeartbeatResponse": {
		"status": {Description: "protocol outcome (always HTTP 200; docs/PROTOCOL.md § Statuses). UNRELEASED_INSTANCE_ID: " +
			"another live member holds this join's instanceId; it keeps its shards: read nothing and retry joining at " +
			"the heartbeat interval. MEMBER_ID_IN_USE: another process (incarnationId) holds this memberId",
			Enum: StatusEnum()},
		"memberEpoch": {Description: "the member's epoch to send next; -1 after a leave, -2 after a temporary leave " +
			"whose assignment is held (static members)"},
	},
	"MemberView": {
		"targetAssignment": {Description: "the shards the assignor wants this member to own. With a move cap " +
			"(assignment.max-moves-per-round, assignment.max-moves-fraction) a member may keep shards outside its " +
			"target, still reading them, for several heartbeats until the group's cap lets them move"},
		"instanceId": {Description: "a static member's instanceId; absent for dynamic members"},
		"heldUntil": {Description: "set while a static member is away on a temporary leave (memberEpoch -2): its " +
			"targetAssignment is given to nobody else until then, for the next process with its instanceId"},
		"transport": {Description: "how the member's last accepted heartbeat arrived: http, or redis (the Redis " +
			"mailbox; such members are nudged when shards are freed for them)", Enum: []any{"http", "redis"}},
	},
}

// StatusEnum lists every heartbeat status.
func StatusEnum() []any {
	var out []any
	for _, s := range []protocol.Status{protocol.StatusOK, protocol.StatusRetry, protocol.StatusSyncMetadata,
		protocol.StatusRevokePending, protocol.StatusUnknownMemberID, protocol.StatusFencedMemberEpoch,
		protocol.StatusUnsupportedProtocol, protocol.StatusInvalidRequest, protocol.StatusMemberIDInUse,
		protocol.StatusUnreleasedInstanceID} {
		out = append(out, string(s))
	}
	return out
}
