package protocol

// The heartbeat decoder has two paths. decodeHeartbeatFast scans a body once,
// allocating only the strings and slices it returns, and accepts only bodies
// for which the reference path (encoding/json into heartbeatWire, then the
// checks of DecodeHeartbeat) would return exactly the same request: exact-case
// field names, each known field at most once, plain strings (no escapes, valid
// UTF-8), integers without fraction or exponent, values of the documented
// types, null only for ackedAt, required fields present and every limit kept.
// Anything else — every malformed body, and the unusual valid ones (escapes,
// case-folded names, duplicate fields, null values, numbers like 1e2) — makes
// it give up, and DecodeHeartbeat runs the reference path, which alone
// produces every error. FuzzDecodeHeartbeat checks that both paths agree on
// every body the fast one accepts.

func (s *scanner) str(max int) (string, bool) {
	v, ok := s.plain()
	if !ok || len(v) > max {
		return "", false
	}
	return string(v), true
}

func (s *scanner) intField() (int, bool) {
	v, ok := s.integer()
	return int(v), ok
}

func (s *scanner) shardID() (ShardID, bool) {
	var id ShardID
	var seen uint32
	ok := s.object(func(key []byte) bool {
		if string(key) == "shardIndex" {
			var ok bool
			id.ShardIndex, ok = s.intField()
			return ok && once(&seen, 1)
		}
		return s.unknown(key, "shardIndex")
	})
	return id, ok
}

// list reads an array of objects (not null) with at most MaxShardList entries.
func list[T any](s *scanner, elem func() (T, bool)) ([]T, bool) {
	if !s.eat('[') {
		return nil, false
	}
	out := []T{}
	if s.eat(']') {
		return out, true
	}
	for {
		if len(out) == MaxShardList {
			return nil, false
		}
		v, ok := elem()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if s.eat(',') {
			continue
		}
		return out, s.eat(']')
	}
}

var revokingNames = []string{"shard", "state", "inFlight", "ackedAt"}

func (s *scanner) revokingShard() (RevokingShard, bool) {
	var r RevokingShard
	var seen uint32
	ok := s.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "shard":
			r.Shard, ok = s.shardID()
			return ok && once(&seen, 1)
		case "state":
			r.State, ok = s.state()
			return ok && once(&seen, 2)
		case "inFlight":
			r.InFlight, ok = s.intField()
			return ok && once(&seen, 4)
		case "ackedAt":
			if !once(&seen, 8) {
				return false
			}
			if s.next() == 'n' {
				return s.literal("null")
			}
			v, ok := s.str(1 << 20)
			r.AckedAt = &v
			return ok
		}
		return s.unknown(key, revokingNames...)
	})
	return r, ok
}

// state reads a revocation state, sharing the constants' memory for the
// documented values.
func (s *scanner) state() (string, bool) {
	v, ok := s.plain()
	if !ok {
		return "", false
	}
	switch string(v) {
	case RevokeStateRevoking:
		return RevokeStateRevoking, true
	case RevokeStateDraining:
		return RevokeStateDraining, true
	case RevokeStateRevoked:
		return RevokeStateRevoked, true
	}
	return string(v), true
}

var progressNames = []string{"shard", "streamKey", "lastDeliveredId", "lastAckedId", "pendingCount", "updatedAt"}

func (s *scanner) shardProgress() (ShardProgress, bool) {
	var p ShardProgress
	var seen uint32
	ok := s.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "shard":
			p.Shard, ok = s.shardID()
			return ok && once(&seen, 1)
		case "streamKey":
			p.StreamKey, ok = s.str(1 << 20)
			return ok && once(&seen, 2)
		case "lastDeliveredId":
			p.LastDeliveredID, ok = s.str(1 << 20)
			return ok && once(&seen, 4)
		case "lastAckedId":
			p.LastAckedID, ok = s.str(1 << 20)
			return ok && once(&seen, 8)
		case "pendingCount":
			p.PendingCount, ok = s.integer()
			return ok && once(&seen, 16)
		case "updatedAt":
			p.UpdatedAt, ok = s.str(1 << 20)
			return ok && once(&seen, 32)
		}
		return s.unknown(key, progressNames...)
	})
	return p, ok
}

var heartbeatNames = []string{"protocolVersion", "requestId", "memberId", "memberName", "memberEpoch", "metadataVersion",
	"runtimeConsumerCapacity", "ownedShards", "revokingShards", "shardProgress", "incarnationId", "instanceId"}

// Field bits of a heartbeat body; the first six are the required ones.
const (
	fProtocolVersion uint32 = 1 << iota
	fRequestID
	fMemberID
	fMemberEpoch
	fMetadataVersion
	fCapacity
	fMemberName
	fOwned
	fRevoking
	fProgress
	fIncarnation
	fInstance
	fRequired = fProtocolVersion | fRequestID | fMemberID | fMemberEpoch | fMetadataVersion | fCapacity
)

// decodeHeartbeatFast is the single-pass path of DecodeHeartbeat; ok false
// means "ask the reference path", never "malformed".
func decodeHeartbeatFast(body []byte) (HeartbeatRequest, bool) {
	s := scanner{b: body}
	var r HeartbeatRequest
	var seen uint32
	ok := s.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "protocolVersion":
			r.ProtocolVersion, ok = s.intField()
			return ok && once(&seen, fProtocolVersion)
		case "requestId":
			r.RequestID, ok = s.str(MaxStringLength)
			return ok && once(&seen, fRequestID)
		case "memberId":
			r.MemberID, ok = s.str(MaxStringLength)
			return ok && once(&seen, fMemberID)
		case "memberName":
			r.MemberName, ok = s.str(MaxStringLength)
			return ok && once(&seen, fMemberName)
		case "memberEpoch":
			r.MemberEpoch, ok = s.integer()
			return ok && once(&seen, fMemberEpoch)
		case "metadataVersion":
			r.MetadataVersion, ok = s.integer()
			return ok && once(&seen, fMetadataVersion)
		case "runtimeConsumerCapacity":
			r.RuntimeConsumerCapacity, ok = s.capacity()
			return ok && once(&seen, fCapacity)
		case "ownedShards":
			r.OwnedShards, ok = list(&s, s.shardID)
			return ok && once(&seen, fOwned)
		case "revokingShards":
			r.RevokingShards, ok = list(&s, s.revokingShard)
			return ok && once(&seen, fRevoking)
		case "shardProgress":
			r.ShardProgress, ok = list(&s, s.shardProgress)
			return ok && once(&seen, fProgress)
		case "incarnationId":
			r.IncarnationID, ok = s.str(MaxStringLength)
			return ok && once(&seen, fIncarnation)
		case "instanceId":
			r.InstanceID, ok = s.str(MaxStringLength)
			return ok && once(&seen, fInstance)
		}
		return s.unknown(key, heartbeatNames...)
	})
	if !ok || seen&fRequired != fRequired {
		return HeartbeatRequest{}, false
	}
	if s.ws(); s.i != len(s.b) {
		return HeartbeatRequest{}, false
	}
	return r, true
}

var capacityNames = []string{"runtimeMaxConcurrency", "availableConcurrency"}

func (s *scanner) capacity() (Capacity, bool) {
	var c Capacity
	var seen uint32
	ok := s.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "runtimeMaxConcurrency":
			c.RuntimeMaxConcurrency, ok = s.intField()
			return ok && once(&seen, 1)
		case "availableConcurrency":
			c.AvailableConcurrency, ok = s.intField()
			return ok && once(&seen, 2)
		}
		return s.unknown(key, capacityNames...)
	})
	return c, ok
}
