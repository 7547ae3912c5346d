package hbtransport

import (
	"context"
	"time"

	"github.com/redisstream/coordinator/membersdk/internal/coordclient"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Heartbeater carries one heartbeat request to the coordinator and its
// answer back. The consumer's heartbeat loop knows nothing else of the
// transport: both implementations give the same errors for the same
// outcomes (the error coordclient.StatusError builds: the SDK's *AuthError for
// 401/403, which stops the consumer, *HTTPError for other non-2xx answers;
// any other error for no answer, both retried).
type Heartbeater interface {
	// Heartbeat sends req and returns the answer and where it came from.
	// round bounds the exchange (0: the request timeout alone bounds it).
	Heartbeat(ctx context.Context, round time.Duration, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, string, error)
	// Where names the coordinator heartbeats go to now (for events).
	Where() string
	// Nudges yields when the coordinator asks for a heartbeat now (nil:
	// the transport cannot push).
	Nudges() <-chan struct{}
	// Close releases what the transport holds; called once Run is done.
	Close()
}

// HTTP POSTs heartbeats to the member's heartbeat path, failing
// over across the coordinator URLs (internal/coordclient).
type HTTP struct {
	CC   *coordclient.Client
	Path string // the member's heartbeat path (coordclient.HeartbeatPath)
}

// Heartbeat POSTs req to the member's heartbeat path.
func (h HTTP) Heartbeat(ctx context.Context, round time.Duration, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, string, error) {
	var resp protocol.HeartbeatResponse
	url, err := h.CC.DoWithin(ctx, round, "POST", h.Path, req, &resp)
	return resp, url, err
}

// Where is the coordinator URL requests go to first.
func (h HTTP) Where() string { return h.CC.Current() }

// Nudges is nil: HTTP cannot push.
func (h HTTP) Nudges() <-chan struct{} { return nil }

// Close does nothing.
func (h HTTP) Close() {}
