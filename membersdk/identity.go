package membersdk

import (
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A member id must be held by one process at a time. Every heartbeat carries
// the consumer's incarnationId (random, made once per NewConsumer): the
// coordinator binds the member id to the incarnation that joined it and
// refuses any other live process on that id with MEMBER_ID_IN_USE, so two
// processes that were given one id (two copies of a service with the same
// MemberID, no POD_IP on one host) never read the same shards. A refused
// consumer reads nothing and retries joining at the heartbeat interval: it
// takes over once the other process has left or its lease has expired.

// newIncarnation returns a random incarnationId (16 bytes of crypto/rand, hex).
func newIncarnation() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("membersdk: no randomness for the incarnationId: " + err.Error()) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b[:])
}

// idRefused handles MEMBER_ID_IN_USE, UNRELEASED_INSTANCE_ID (static membership)
// and a 403 MEMBER_OWNED_BY_ANOTHER_PRINCIPAL:
// stop every shard at once, log an ERROR the first time, and join again (epoch 0) at the
// next round, which the caller schedules one heartbeat interval away.
func (c *Consumer) idRefused(status protocol.Status, msg string) {
	shards := c.ownedIndexes()
	for _, s := range shards {
		c.ls.workers[s].Kill()
	}
	switch {
	case !c.ls.idRefused && status == protocol.StatusUnreleasedInstanceID:
		c.ls.idRefused = true
		c.log.Error("the coordinator refuses this instance id: another live member holds it; reading nothing, retrying to join every heartbeat interval",
			"status", status, "message", msg, "instanceId", c.cfg.InstanceID, "stoppedShards", shards,
			"action", "give each process its own ConsumerConfig.InstanceID; this process takes over once the other one has left (a temporary leave hands it over) or its lease expired")
	case !c.ls.idRefused:
		c.ls.idRefused = true
		c.log.Error("the coordinator refuses this member id: another live process holds it; reading nothing, retrying to join every heartbeat interval",
			"status", status, "message", msg, "stoppedShards", shards,
			"action", "give each process its own member id (leave ConsumerConfig.MemberID empty for a per-process default, or set POD_IP); this process takes over once the other one has left or its lease expired")
	default:
		c.log.Debug("member id still in use; retrying to join", "status", status)
	}
	c.emit(Event{Type: EventMemberIDInUse, Status: status, Shards: shards, Err: errors.New(msg)})
	c.ls.epoch = protocol.EpochJoin
	c.epoch.Store(protocol.EpochJoin)
	c.ls.rejoin = true
	c.ls.joined = false
	c.ls.failing = true
	c.ls.assigned, c.ls.pending = nil, nil
}

// idFree notes that a heartbeat was accepted: the member id is ours (again).
func (c *Consumer) idFree() {
	if c.ls.idRefused {
		c.ls.idRefused = false
		c.log.Info("member id is free again; joined it")
	}
}
