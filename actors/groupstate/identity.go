package groupstate

import (
	"github.com/redisstream/coordinator/actors/groupstate/identity"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// identityRefusal returns the refusal of hb by the identity rules (groupstate/identity), if
// any. m is the member's record (nil: unknown).
func identityRefusal(g *Group, hb *model.Heartbeat, m *model.Member) (Decision, bool) {
	r, refused := identity.Check(hb, m, g.meta.ConsumerGroup)
	if !refused {
		return Decision{}, false
	}
	d := reject(g, hb, r.Status, 0, r.Message)
	d.Response.IDInUse = r.IDInUse
	return d, true
}

// bindIdentity records hb's principal and incarnation (identity.Bind) and its transport in c,
// the txn's version of an accepted member.
func bindIdentity(c *model.Member, hb *model.Heartbeat) {
	bindTransport(c, hb) // not identity, but recorded at every point identity is (transport.go)
	identity.Bind(c, hb)
}
