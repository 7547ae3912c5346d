package protocol

import "unicode/utf8"

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

// maxSkipDepth bounds the nesting of ignored (unknown) field values the fast
// path skips; deeper values go to the reference path.
const maxSkipDepth = 64

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips whitespace and returns the next byte (0 at the end).
func (s *scanner) next() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// eat consumes c (after whitespace) and reports whether it was there.
func (s *scanner) eat(c byte) bool {
	if s.next() == c {
		s.i++
		return true
	}
	return false
}

// plain reads a string without escapes or control characters whose bytes are
// valid UTF-8 and returns its content (aliasing the body).
func (s *scanner) plain() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start, ascii := s.i, true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(v) {
				return nil, false
			}
			return v, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
		s.i++
	}
	return nil, false
}

// integer reads a JSON integer (no fraction, no exponent) that fits an int64.
func (s *scanner) integer() (int64, bool) {
	s.ws()
	neg := false
	if s.i < len(s.b) && s.b[s.i] == '-' {
		neg = true
		s.i++
	}
	start := s.i
	var v uint64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		v = v*10 + uint64(s.b[s.i]-'0')
		s.i++
	}
	n := s.i - start
	switch {
	case n == 0 || n > 18: // 18 digits never overflow an int64
		return 0, false
	case n > 1 && s.b[start] == '0': // leading zero: a syntax error
		return 0, false
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// skip validates and skips any JSON value (an unknown field's).
func (s *scanner) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	switch s.next() {
	case '{':
		s.i++
		if s.eat('}') {
			return true
		}
		for {
			if !s.skipString() || !s.eat(':') || !s.skip(depth+1) {
				return false
			}
			if s.eat(',') {
				continue
			}
			return s.eat('}')
		}
	case '[':
		s.i++
		if s.eat(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.eat(',') {
				continue
			}
			return s.eat(']')
		}
	case '"':
		return s.skipString()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		return s.skipNumber()
	}
}

// skipString skips a string, escapes included (its content is ignored).
func (s *scanner) skipString() bool {
	if !s.eat('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i >= len(s.b) {
				return false
			}
			e := s.b[s.i]
			s.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(s.b)-s.i < 4 {
					return false
				}
				for _, h := range s.b[s.i : s.i+4] {
					if !isHex(h) {
						return false
					}
				}
				s.i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skipNumber skips a number of the JSON grammar.
func (s *scanner) skipNumber() bool {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	start := s.i
	n := digits()
	if n == 0 || n > 1 && s.b[start] == '0' {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// object walks one JSON object, calling field for each key. field returns
// false to give up. An unknown key must be skipped by field (s.skip).
func (s *scanner) object(field func(key []byte) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	for {
		key, ok := s.plain()
		if !ok || !s.eat(':') || !field(key) {
			return false
		}
		if s.eat(',') {
			continue
		}
		return s.eat('}')
	}
}

// unknown skips the value of a key that is none of names, unless the key
// could match one of them the way encoding/json matches (case-insensitively,
// with Unicode folding): then only the reference path can tell.
func (s *scanner) unknown(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= 0x80 {
			return false
		}
	}
	for _, n := range names {
		if asciiEqualFold(key, n) {
			return false
		}
	}
	return s.skip(1)
}

func asciiEqualFold(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x|0x20 >= 'a' && x|0x20 <= 'z' {
			x |= 0x20
			y |= 0x20
		}
		if x != y {
			return false
		}
	}
	return true
}

// once marks field bit f as seen; false if it already was (a duplicate).
func once(seen *uint32, f uint32) bool {
	if *seen&f != 0 {
		return false
	}
	*seen |= f
	return true
}

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
