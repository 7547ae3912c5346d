package membersdk

import (
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// EventType names something that happened to a consumer. Events are for
// observability (logs, metrics, test recorders); the consumer never waits on
// what a hook does with them.
type EventType string

// Event types reported to ConsumerConfig.OnEvent.
const (
	// EventJoined: the coordinator accepted the member (first OK after a join).
	EventJoined EventType = "JOINED"
	// EventAssignment: the assignment in a heartbeat response differs from the
	// previous one (Shards = assignedShards, Pending = pendingShards).
	EventAssignment EventType = "ASSIGNMENT"
	// EventShardStarted: a shard worker started (claims pending entries, then reads).
	EventShardStarted EventType = "SHARD_STARTED"
	// EventShardRevoking: a shard is being given up; reading stopped, in-flight
	// handlers drain within rebalanceTimeoutMs.
	EventShardRevoking EventType = "SHARD_REVOKING"
	// EventShardReleased: the shard's worker has exited; no further read or
	// XACK happens for it. Err is set when in-flight work was abandoned.
	EventShardReleased EventType = "SHARD_RELEASED"
	// EventFenced: the coordinator answered UNKNOWN_MEMBER_ID or
	// FENCED_MEMBER_EPOCH; every shard was stopped at once and the member rejoins.
	EventFenced EventType = "FENCED"
	// EventMemberIDInUse: the coordinator refused the member id because
	// another live process holds it (MEMBER_ID_IN_USE), or another principal
	// joined it (403 MEMBER_OWNED_BY_ANOTHER_PRINCIPAL). Every shard was
	// stopped at once; the consumer retries joining at the heartbeat interval
	// and takes over once the id is free. Err carries the coordinator's message.
	EventMemberIDInUse EventType = "MEMBER_ID_IN_USE"
	// EventSelfFenced: no successful heartbeat for (lease TTL − margin); every
	// shard was stopped at once.
	EventSelfFenced EventType = "SELF_FENCED"
	// EventResumed: a successful heartbeat after self-fencing; shards are
	// started again as assigned.
	EventResumed EventType = "RESUMED"
	// EventHeartbeatFailed: a heartbeat got no usable answer from any URL, or
	// the answer was RETRY.
	EventHeartbeatFailed EventType = "HEARTBEAT_FAILED"
	// EventFailover: the consumer switched to another coordinator URL.
	EventFailover EventType = "FAILOVER"
	// EventAcked: an entry was acknowledged after its handler succeeded.
	// Event.Time is when the XACK was sent.
	EventAcked EventType = "ACKED"
	// EventAckRefused: a handler finished but the shard was no longer owned
	// (revoked, fenced or self-fenced), so the entry was left pending.
	EventAckRefused EventType = "ACK_REFUSED"
	// EventAckFenced: the shard fence in Redis refused an acknowledgement,
	// a claim or a dead-letter move of this worker (EntryID set for
	// acknowledgements and dead letters): the shard belongs to another owner
	// now, although the in-process check still allowed the write (the member
	// was paused past its lease). Nothing was written; the entries stay
	// pending for the real owner and the worker stops. Err says what the
	// fence held.
	EventAckFenced EventType = "ACK_FENCED"
	// EventFenceNotHeld: a shard worker started but the shard's fence names
	// another owner; it does not read, and the shard is started again on a
	// later heartbeat. Err says what the fence held.
	EventFenceNotHeld EventType = "FENCE_NOT_HELD"
	// EventDeadLettered: an entry failed MaxDeliveries times and was moved to
	// the dead-letter stream, then acknowledged.
	EventDeadLettered EventType = "DEAD_LETTERED"
	// EventLeaving: shutdown started: shards drain, heartbeats carry epoch -1.
	EventLeaving EventType = "LEAVING"
	// EventLeft: the final leave heartbeat (epoch -1, nothing owned) was sent.
	EventLeft EventType = "LEFT"
)

// Event is one observation. Shard is -1 when the event is not about a shard.
type Event struct {
	Type     EventType
	Time     time.Time
	MemberID string
	Epoch    int64
	Shard    int
	// EntryID is set for entry events (ACKED, ACK_REFUSED, DEAD_LETTERED).
	EntryID string
	// Shards and Pending are set for ASSIGNMENT (Shards also for FENCED,
	// SELF_FENCED and LEAVING: the shards stopped).
	Shards  []int
	Pending []int
	// MetadataVersion is set for JOINED and ASSIGNMENT; a Producer in the same
	// process can be fed it through ObserveMetadataVersion.
	MetadataVersion int64
	// Status is the heartbeat status for FENCED and HEARTBEAT_FAILED (RETRY).
	Status protocol.Status
	// URL is the coordinator URL for FAILOVER and HEARTBEAT_FAILED.
	URL string
	Err error
}

// aboutShard reports whether events of this type concern one shard.
func (t EventType) aboutShard() bool {
	switch t {
	case EventShardStarted, EventShardRevoking, EventShardReleased, EventAcked, EventAckRefused, EventDeadLettered, EventAckFenced, EventFenceNotHeld:
		return true
	}
	return false
}
