package groupstate

import "github.com/redisstream/coordinator/actors/groupstate/model"

// Transports. A member record keeps how its last accepted heartbeat arrived (model.Member.
// Transport: "" for HTTP, model.TransportRedis for the Redis mailbox). Monitoring shows it, and
// only mailbox members are nudged (nudge.go): HTTP gives the coordinator no way to reach a
// member unprompted. It is durable so that a restart or a move keeps nudging the right members;
// it costs a write only when a member switches transport (steady.go leaves such a heartbeat to
// the general path).

// recordedTransport is how hb's transport is kept in a member record.
func recordedTransport(hb *model.Heartbeat) string {
	if hb.Transport == model.TransportHTTP {
		return ""
	}
	return hb.Transport
}

// bindTransport records hb's transport in c, the txn's version of an accepted member.
func bindTransport(c *model.Member, hb *model.Heartbeat) { c.Transport = recordedTransport(hb) }

// transportMoved reports whether accepting hb would change m's recorded transport.
func transportMoved(m *model.Member, hb *model.Heartbeat) bool {
	return m.Transport != recordedTransport(hb)
}
