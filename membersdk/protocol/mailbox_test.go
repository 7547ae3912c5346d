package protocol

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMailboxKeysEscapeNamesLikeTheStore(t *testing.T) {
	require.Equal(t, "rsc:{mb:alice}:requests", MailboxRequestsKey("rsc", "alice"))
	require.Equal(t, "rsc:{mb:-}:reply:orders|g|10.0.0.7-m0", MailboxReplyKey("rsc", MailboxNoAuthPrincipal, "orders", "g", "10.0.0.7-m0"))
	// A name cannot close the hash tag or smuggle a separator.
	require.Equal(t, "p:{mb:a%7Db%7B%20%25}:requests", MailboxRequestsKey("p", "a}b{ %"))
	require.Equal(t, "p:{mb:x}:reply:s%7Cx|g%20h|m%2F%C3%A9", MailboxReplyKey("p", "x", "s|x", "g h", "m/é"))
	require.Equal(t, "Az09._:-", EscapeKeyName("Az09._:-"))
}

func TestMailboxReplyWireShape(t *testing.T) {
	var r MailboxReply
	require.NoError(t, json.Unmarshal([]byte(`{"v":1,"kind":"reply","requestId":"r1","status":403,"body":{"errorCode":"FORBIDDEN"}}`), &r))
	require.Equal(t, MailboxReply{V: 1, Kind: MailboxKindReply, RequestID: "r1", Status: 403, Body: json.RawMessage(`{"errorCode":"FORBIDDEN"}`)}, r)
	b, err := json.Marshal(MailboxReply{V: MailboxVersion, Kind: MailboxKindNudge, Reason: "shards-freed"})
	require.NoError(t, err)
	require.JSONEq(t, `{"v":1,"kind":"nudge","reason":"shards-freed"}`, string(b))
}
