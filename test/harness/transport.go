package harness

// Transport carries one member heartbeat to a coordinator and brings back
// the answer as HTTP would: the status code and the exact response body.
// Two implementations: *Client (POST to the heartbeat route) and *Mailbox
// (the Redis mailbox of docs/PROTOCOL.md), so one scenario can run over
// both and compare what they answer.
type Transport interface {
	// Heartbeat sends body (a protocol-v1 heartbeat request body, as bytes)
	// for member of prefix/group and returns the HTTP status and body of
	// the answer; err when no answer came (a transport error).
	Heartbeat(prefix, group, member string, body []byte) (status int, answer []byte, err error)
	// Name is "http" or "redis", for subtest names and messages.
	Name() string
}

// Heartbeat posts body to the member's heartbeat route.
func (c *Client) Heartbeat(prefix, group, member string, body []byte) (int, []byte, error) {
	return c.Do("POST", HeartbeatPath(prefix, group, member), body, nil)
}

// Name is "http".
func (c *Client) Name() string { return "http" }
