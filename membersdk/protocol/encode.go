package protocol

import (
	"encoding/json"
	"strconv"
)

// AppendHeartbeatResponse appends the JSON of r to dst: byte for byte what
// encoding/json.Marshal(r) produces (TestAppendHeartbeatResponseMatchesMarshal
// and its fuzz target check it), without reflection. Strings other than plain
// printable ASCII are escaped by encoding/json itself.
func AppendHeartbeatResponse(dst []byte, r *HeartbeatResponse) []byte {
	dst = append(dst, `{"responseTo":`...)
	dst = appendString(dst, r.ResponseTo)
	dst = append(dst, `,"status":`...)
	dst = appendString(dst, string(r.Status))
	dst = append(dst, `,"memberId":`...)
	dst = appendString(dst, r.MemberID)
	dst = append(dst, `,"memberEpoch":`...)
	dst = strconv.AppendInt(dst, r.MemberEpoch, 10)
	dst = append(dst, `,"heartbeatIntervalMs":`...)
	dst = strconv.AppendInt(dst, r.HeartbeatIntervalMs, 10)
	dst = append(dst, `,"rebalanceTimeoutMs":`...)
	dst = strconv.AppendInt(dst, r.RebalanceTimeoutMs, 10)
	dst = append(dst, `,"memberLeaseTtlMs":`...)
	dst = strconv.AppendInt(dst, r.MemberLeaseTTLMs, 10)
	dst = append(dst, `,"groupEpoch":`...)
	dst = strconv.AppendInt(dst, r.GroupEpoch, 10)
	dst = append(dst, `,"assignmentEpoch":`...)
	dst = strconv.AppendInt(dst, r.AssignmentEpoch, 10)
	dst = append(dst, `,"metadataVersion":`...)
	dst = strconv.AppendInt(dst, r.MetadataVersion, 10)
	dst = append(dst, `,"assignment":{"assignedShards":`...)
	dst = appendShards(dst, r.Assignment.AssignedShards)
	dst = append(dst, `,"pendingShards":`...)
	dst = appendShards(dst, r.Assignment.PendingShards)
	dst = append(dst, `,"metadataVersion":`...)
	dst = strconv.AppendInt(dst, r.Assignment.MetadataVersion, 10)
	dst = append(dst, '}')
	if r.Message != "" {
		dst = append(dst, `,"message":`...)
		dst = appendString(dst, r.Message)
	}
	return append(dst, '}')
}

func appendShards(dst []byte, ids []ShardID) []byte {
	if ids == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, id := range ids {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"shardIndex":`...)
		dst = strconv.AppendInt(dst, int64(id.ShardIndex), 10)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendString quotes s as encoding/json does; anything but printable ASCII
// without the characters it escapes (" \ < > &) is left to encoding/json.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always marshals
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
