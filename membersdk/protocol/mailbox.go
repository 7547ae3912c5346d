package protocol

import "encoding/json"

// The Redis mailbox is the second heartbeat transport (docs/PROTOCOL.md,
// "Redis mailbox"): a member XADDs its protocol-v1 heartbeat body to its
// principal's request stream and BLPOPs the answer from its own reply list.
// All keys of one principal share the hash tag {mb:<principal>}, so they live
// in one Redis Cluster slot.
const (
	// MailboxVersion is the framing version: the "v" field of a request
	// entry and of a reply element.
	MailboxVersion = 1
	// DefaultMailboxKeyPrefix is the coordinator's default store.key-prefix.
	DefaultMailboxKeyPrefix = "rsc"
	// MailboxNoAuthPrincipal is the principal of every member when the
	// coordinator runs without member authentication.
	MailboxNoAuthPrincipal = "-"
	// DefaultMailboxMaxRequests is the approximate length a request stream
	// is trimmed to on every XADD (XADD … MAXLEN ~ 10000).
	DefaultMailboxMaxRequests = 10000

	// Fields of a request entry.
	MailboxFieldVersion = "v"       // MailboxVersion, as a decimal string
	MailboxFieldStream  = "stream"  // stream prefix (the HTTP path's :p)
	MailboxFieldGroup   = "group"   // consumer group (the HTTP path's :g)
	MailboxFieldMember  = "member"  // member id (the HTTP path's :memberId)
	MailboxFieldOp      = "op"      // MailboxOpHeartbeat
	MailboxFieldBody    = "body"    // the HTTP request body bytes
	MailboxFieldTimeout = "timeout" // milliseconds the member waits for the reply

	// MailboxOpHeartbeat is the only operation: a heartbeat, or a leave
	// (memberEpoch -1), exactly as over HTTP.
	MailboxOpHeartbeat = "heartbeat"

	// Kinds of reply element.
	MailboxKindReply = "reply" // the answer to one request
	MailboxKindNudge = "nudge" // unprompted: heartbeat now
)

// MailboxReply is one element of a member's reply list:
//
//	{"v":1,"kind":"reply","requestId":"…","status":200,"body":{…}}
//	{"v":1,"kind":"nudge","reason":"shards-freed"}
//
// Status is the HTTP status code the same request gets over HTTP (200 for
// every protocol outcome) and Body the exact HTTP response body: a
// HeartbeatResponse when Status is 2xx, an ErrorBody otherwise.
type MailboxReply struct {
	V         int             `json:"v"`
	Kind      string          `json:"kind"`
	RequestID string          `json:"requestId,omitempty"`
	Status    int             `json:"status,omitempty"`
	Body      json.RawMessage `json:"body,omitempty"`
	Reason    string          `json:"reason,omitempty"`
}

// MailboxRequestsKey is the request stream of principal:
// "<prefix>:{mb:<principal>}:requests".
func MailboxRequestsKey(prefix, principal string) string {
	return prefix + ":{mb:" + EscapeKeyName(principal) + "}:requests"
}

// MailboxReplyKey is the reply list of one member of one group of principal:
// "<prefix>:{mb:<principal>}:reply:<stream>|<group>|<memberId>". The group is
// part of the name because member ids repeat across groups (the SDK's default
// "<podIP>-m<index>" does): one process consuming two groups under one
// principal must not find one group's answers in the other's list. '|' cannot
// occur in an escaped name, so the three parts never run together.
func MailboxReplyKey(prefix, principal, stream, group, memberID string) string {
	return prefix + ":{mb:" + EscapeKeyName(principal) + "}:reply:" +
		EscapeKeyName(stream) + "|" + EscapeKeyName(group) + "|" + EscapeKeyName(memberID)
}

// EscapeKeyName percent-encodes every byte outside [A-Za-z0-9._:-] (%XX,
// upper-case hex), the coordinator store's rule for names inside keys: valid
// names pass through unchanged, and an escaped name never contains '{' or
// '}', so it cannot close a hash tag.
func EscapeKeyName(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !keySafeByte(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if keySafeByte(c) {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

func keySafeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-' || c == ':'
}
