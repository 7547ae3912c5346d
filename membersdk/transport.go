package membersdk

import (
	"context"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Heartbeat transports (ConsumerConfig.Transport).
const (
	// TransportHTTP: heartbeats are POSTed to the coordinator's HTTP API
	// (CoordinatorURLs, with failover). The default.
	TransportHTTP = "http"
	// TransportRedis: heartbeats go through the Redis mailbox
	// (docs/PROTOCOL.md, "Redis mailbox") on the data-plane Redis client;
	// the coordinator's HTTP port need not be reachable.
	TransportRedis = "redis"
)

// heartbeater carries one heartbeat request to the coordinator and its
// answer back. The consumer's heartbeat loop knows nothing else of the
// transport: both implementations give the same errors for the same
// outcomes (*AuthError for 401/403, which stops the consumer; *HTTPError for
// other non-2xx answers and any other error for no answer, both retried).
type heartbeater interface {
	// heartbeat sends req and returns the answer and where it came from.
	// round bounds the exchange (0: the request timeout alone bounds it).
	heartbeat(ctx context.Context, round time.Duration, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, string, error)
	// where names the coordinator heartbeats go to now (for events).
	where() string
	// nudges yields when the coordinator asks for a heartbeat now (nil:
	// the transport cannot push).
	nudges() <-chan struct{}
	// close releases what the transport holds; called once Run is done.
	close()
}

// httpHeartbeater POSTs heartbeats to the member's heartbeat path, failing
// over across the coordinator URLs (coordClient).
type httpHeartbeater struct {
	cc   *coordClient
	path string
}

func (h httpHeartbeater) heartbeat(ctx context.Context, round time.Duration, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, string, error) {
	var resp protocol.HeartbeatResponse
	url, err := h.cc.doWithin(ctx, round, "POST", h.path, req, &resp)
	return resp, url, err
}

func (h httpHeartbeater) where() string           { return h.cc.current() }
func (h httpHeartbeater) nudges() <-chan struct{} { return nil }
func (h httpHeartbeater) close()                  {}
