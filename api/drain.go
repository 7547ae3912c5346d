package api

import (
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Graceful shutdown, HTTP side. BeginDrain marks the server draining:
//
//   - /coord/v1/monitoring/ready answers 503 SHUTTING_DOWN, so probes and
//     load balancers take the node out of service;
//   - /coord/v1/monitoring/live keeps answering 200 (status DRAINING): a
//     draining node must not be restarted by its liveness probe;
//   - every new request that would give the node work (heartbeats, admin,
//     routing, monitoring and debug reads) is answered 503 SHUTTING_DOWN
//     with Retry-After: 1 and changes nothing; clients retry, elsewhere when
//     they know several coordinators (the member SDK moves to its next URL
//     on any non-2xx);
//   - requests already running finish; Shutdown then closes the port and
//     waits for them.
//
// Health, liveness, readiness, compatibility, metrics, the OpenAPI document
// and its viewer keep answering while draining.
type drainState struct{ on atomic.Bool }

// BeginDrain starts draining (see drainState). It is idempotent and never
// undone: a draining process exits.
func (s *Server) BeginDrain() {
	if s.drain.on.CompareAndSwap(false, true) {
		s.log.Info("draining: new requests are answered 503 SHUTTING_DOWN, readiness is 503")
	}
}

// Draining reports whether BeginDrain was called.
func (s *Server) Draining() bool { return s.drain.on.Load() }

// drainExempt are the path prefixes served while draining.
var drainExempt = []string{
	"/coord/v1/monitoring/health", "/coord/v1/monitoring/ready", "/coord/v1/monitoring/live",
	"/coord/v1/monitoring/compatibility", "/coord/v1/openapi.json", "/metrics", "/docs", "/console",
}

// refuseWhileDraining is the answer to a request that would start new work
// on a draining node, or nil.
func (s *Server) refuseWhileDraining(c *fiber.Ctx) error {
	if !s.drain.on.Load() {
		return nil
	}
	p := c.Path()
	for _, e := range drainExempt {
		if strings.HasPrefix(p, e) {
			return nil
		}
	}
	return errShuttingDown
}

var errShuttingDown = &httpx.Error{Status: http.StatusServiceUnavailable, Code: protocol.CodeShuttingDown,
	Msg: "this coordinator is shutting down; retry (another coordinator, if you know one)", RetryAfter: 1}

// live: GET /coord/v1/monitoring/live, public: 200 while the process serves
// HTTP, draining or not. Use it as the liveness probe.
func (m *monitoring) live(*fiber.Ctx, *noInput) (liveResponse, error) {
	st := "UP"
	if m.draining() {
		st = "DRAINING"
	}
	return liveResponse{Draining: m.draining(), Status: st}, nil
}

// liveResponse is the body of /monitoring/live (fields in the order the
// server has always written them).
type liveResponse struct {
	Draining bool   `json:"draining"`
	Status   string `json:"status" enum:"UP,DRAINING"`
}
