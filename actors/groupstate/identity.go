package groupstate

import (
	"fmt"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Member identity: who may speak for a member id, and which process.
//
// A member record keeps the principal that joined it (the authenticated user; "" when member
// authentication is off) and the incarnation (the per-process marker the heartbeat carried as
// incarnationId; "" for clients that send none). Both are durable, so a restart or a failover
// keeps the binding. The rules, checked before anything else for a record that is not EXPIRED
// (STARTING, ACTIVE, LEAVING and FENCED records may all still have a process reading shards):
//
//   - Principal. A heartbeat or leave from a principal other than the record's is refused
//     (StatusOwnedByAnotherPrincipal) and changes nothing: no fence, no epoch move, no lease
//     renewal. A record without a principal (joined while member authentication was off) is
//     taken over by the first principal that speaks for it once authentication is on, so that
//     turning authentication on does not stop running members.
//   - Incarnation. A record that holds an incarnation is spoken for only by heartbeats carrying
//     the same one: a join, heartbeat or leave with another incarnation, or with none, is
//     refused with StatusMemberIDInUse (StatusFencedMemberEpoch for one that carries none: that
//     client may not know the newer status) and changes nothing. The first process keeps its shards,
//     its epoch and its lease (Kafka's UNRELEASED_INSTANCE_ID). Once the record is gone (the
//     member left) or EXPIRED, a new incarnation may join. A record without an incarnation (a
//     reference client joined it) adopts the first one a heartbeat carries; heartbeats that
//     carry none behave exactly as before.
//
// An EXPIRED record binds nothing: it holds no shard, and the next join replaces it.

// identityRefusal returns the refusal of hb by the identity rules, if any. m is the member's record (nil: unknown).
func identityRefusal(g *Group, hb *model.Heartbeat, m *model.Member) (Decision, bool) {
	r, refused := checkIdentity(hb, m, g.meta.ConsumerGroup)
	if !refused {
		return Decision{}, false
	}
	d := reject(g, hb, r.Status, 0, r.Message)
	d.Response.IDInUse = r.IDInUse
	return d, true
}

// bindIdentity records hb's principal and incarnation and its transport in c, the txn's version
// of an accepted member: a record keeps what it has (checkIdentity let only matching heartbeats
// through) and takes what it lacks.
func bindIdentity(c *model.Member, hb *model.Heartbeat) {
	bindTransport(c, hb) // not identity, but recorded at every point identity is (transport.go)
	if c.Principal == "" {
		c.Principal = hb.Principal
	}
	if c.Incarnation == "" {
		c.Incarnation = hb.Incarnation
	}
}

// identityRefused is how a heartbeat the identity rules refuse is answered; nothing changes.
type identityRefused struct {
	Status  model.Status
	Message string
	IDInUse bool // Response.IDInUse: another live process uses the member id
}

// checkIdentity returns the refusal of hb by the identity rules, if any. m is the member's record
// (nil: unknown); group names the consumer group in the message.
func checkIdentity(hb *model.Heartbeat, m *model.Member, group string) (identityRefused, bool) {
	if m == nil || m.State == model.StateExpired {
		return identityRefused{}, false
	}
	if m.Principal != "" && hb.Principal != m.Principal {
		return identityRefused{Status: model.StatusOwnedByAnotherPrincipal, Message: fmt.Sprintf(
			"member %q of group %q was joined by another principal; only that principal may heartbeat or leave for it: run each member under its own credentials and member id",
			hb.MemberID, group)}, true
	}
	if m.Incarnation != "" && hb.Incarnation != m.Incarnation && !(m.Away() && hb.MemberEpoch == 0) {
		if hb.Incarnation == "" {
			// A client that sends no incarnationId (a reference client, an older membersdk)
			// does not know MEMBER_ID_IN_USE, and an older membersdk keeps its shards on an
			// unknown status: it is told FENCED_MEMBER_EPOCH, which every v1 client obeys
			// by dropping every shard. Still nothing changes.
			return identityRefused{Status: model.StatusFencedMemberEpoch, IDInUse: true, Message: fmt.Sprintf(
				"member id %q is in use by another live process in group %q; give each process its own memberId (this client sends no incarnationId: stop reading every shard at once; a rejoin is refused until the id is free)",
				hb.MemberID, group)}, true
		}
		return identityRefused{Status: model.StatusMemberIDInUse, IDInUse: true, Message: fmt.Sprintf(
			"member id %q is in use by another live process in group %q; give each process its own memberId (this process retries joining and takes over only once the id is free: the other process left or its lease expired)",
			hb.MemberID, group)}, true
	}
	return identityRefused{}, false
}

// identityBound reports whether accepting hb would add an identity to m's record (a durable change).
func identityBound(m *model.Member, hb *model.Heartbeat) bool {
	return (m.Principal == "" && hb.Principal != "") || (m.Incarnation == "" && hb.Incarnation != "")
}
