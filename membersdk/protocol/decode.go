package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Limits on decoded heartbeat bodies. They bound the work one request can
// cause; the HTTP body limit bounds the bytes.
const (
	MaxShardList    = 100_000 // entries in ownedShards, revokingShards or shardProgress
	MaxStringLength = 512     // requestId, memberName and other free-text fields
)

// ErrMalformed is returned for a body that is not a valid v1 heartbeat at the
// JSON level: syntax errors, wrong types, missing required fields, oversized
// lists. The server answers it with HTTP 400 and changes nothing.
var ErrMalformed = errors.New("protocol: malformed request")

// heartbeatWire mirrors HeartbeatRequest with pointers for the required
// fields, so that a missing field is told apart from a zero value.
type heartbeatWire struct {
	ProtocolVersion         *int            `json:"protocolVersion"`
	RequestID               *string         `json:"requestId"`
	MemberID                *string         `json:"memberId"`
	MemberName              string          `json:"memberName"`
	MemberEpoch             *int64          `json:"memberEpoch"`
	MetadataVersion         *int64          `json:"metadataVersion"`
	RuntimeConsumerCapacity *Capacity       `json:"runtimeConsumerCapacity"`
	OwnedShards             []ShardID       `json:"ownedShards"`
	RevokingShards          []RevokingShard `json:"revokingShards"`
	ShardProgress           []ShardProgress `json:"shardProgress"`
	IncarnationID           string          `json:"incarnationId"`
	InstanceID              string          `json:"instanceId"`
}

// DecodeHeartbeat parses a heartbeat body. Unknown fields are ignored (SPEC
// §4). It checks JSON syntax, types, required fields and list/string limits;
// protocol rules (epochs, shard ranges, duplicates) are the coordinator's.
//
// Ordinary bodies are decoded in one pass (decode_fast.go); every other body,
// and every malformed one, by the reference path below, which gives the same
// result (FuzzDecodeHeartbeat checks it) and all the errors.
func DecodeHeartbeat(body []byte) (HeartbeatRequest, error) {
	if r, ok := decodeHeartbeatFast(body); ok {
		return r, nil
	}
	return decodeHeartbeatReference(body)
}

// decodeHeartbeatReference decodes with encoding/json: its behaviour (field
// name matching, duplicates, null, number forms, invalid UTF-8) is what the
// fast path must reproduce.
func decodeHeartbeatReference(body []byte) (HeartbeatRequest, error) {
	var w heartbeatWire
	if err := decodeStrictJSON(body, &w); err != nil {
		return HeartbeatRequest{}, err
	}
	var missing []string
	if w.ProtocolVersion == nil {
		missing = append(missing, "protocolVersion")
	}
	if w.RequestID == nil {
		missing = append(missing, "requestId")
	}
	if w.MemberID == nil {
		missing = append(missing, "memberId")
	}
	if w.MemberEpoch == nil {
		missing = append(missing, "memberEpoch")
	}
	if w.MetadataVersion == nil {
		missing = append(missing, "metadataVersion")
	}
	if w.RuntimeConsumerCapacity == nil {
		missing = append(missing, "runtimeConsumerCapacity")
	}
	if len(missing) > 0 {
		return HeartbeatRequest{}, fmt.Errorf("%w: missing required field(s) %v", ErrMalformed, missing)
	}
	for _, l := range [...]struct {
		name string
		n    int
	}{{"ownedShards", len(w.OwnedShards)}, {"revokingShards", len(w.RevokingShards)}, {"shardProgress", len(w.ShardProgress)}} {
		if l.n > MaxShardList {
			return HeartbeatRequest{}, fmt.Errorf("%w: %s has %d entries, limit is %d", ErrMalformed, l.name, l.n, MaxShardList)
		}
	}
	for _, f := range [...]struct{ name, s string }{{"requestId", *w.RequestID}, {"memberId", *w.MemberID}, {"memberName", w.MemberName}, {"incarnationId", w.IncarnationID}, {"instanceId", w.InstanceID}} {
		if len(f.s) > MaxStringLength {
			return HeartbeatRequest{}, fmt.Errorf("%w: %s is %d bytes, limit is %d", ErrMalformed, f.name, len(f.s), MaxStringLength)
		}
	}
	return HeartbeatRequest{
		ProtocolVersion:         *w.ProtocolVersion,
		RequestID:               *w.RequestID,
		MemberID:                *w.MemberID,
		MemberName:              w.MemberName,
		MemberEpoch:             *w.MemberEpoch,
		MetadataVersion:         *w.MetadataVersion,
		RuntimeConsumerCapacity: *w.RuntimeConsumerCapacity,
		OwnedShards:             w.OwnedShards,
		RevokingShards:          w.RevokingShards,
		ShardProgress:           w.ShardProgress,
		IncarnationID:           w.IncarnationID,
		InstanceID:              w.InstanceID,
	}, nil
}

// DecodeJSON parses an admin body into v: syntax and type errors, trailing
// data and an empty body are ErrMalformed. Unknown fields are ignored.
func DecodeJSON(body []byte, v any) error {
	return decodeStrictJSON(body, v)
}

func decodeStrictJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return fmt.Errorf("%w: empty body, expected a JSON object", ErrMalformed)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return typeError(typeErr)
		}
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: unexpected data after the JSON object", ErrMalformed)
	}
	return nil
}
