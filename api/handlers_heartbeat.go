package api

import (
	"net/http"
	"sync"
	"time"

	"github.com/redisstream/coordinator/api/auth"
	"github.com/redisstream/coordinator/api/edge"
	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// heartbeat handles POST …/members/:memberId/heartbeat.
//
// Contract: path names must pass protocol.ValidateName/ValidateMemberID and
// the body protocol.DecodeHeartbeat and checkHeartbeat, else 400 and the
// Service is not called. Every protocol outcome the Service returns
// (OK, RETRY, FENCED_MEMBER_EPOCH, INVALID_REQUEST for a path/body memberId
// mismatch, …) is sent with HTTP 200. Service errors map as errors.go says.
func (s *Server) heartbeat(c *fiber.Ctx) error {
	start := requestStart(c)
	status := "REJECTED"
	defer func() { s.metrics.ObserveHeartbeat(protocol.TransportHTTP, status, time.Since(start)) }()

	p, g, err := edge.StreamGroup(c)
	if err != nil {
		return err
	}
	member, err := edge.PathMemberID(c)
	if err != nil {
		return err
	}
	body, err := edge.RequestBody(c)
	if err != nil {
		return err
	}
	req, err := protocol.DecodeHeartbeat(body)
	if err != nil {
		return httpx.Malformed(err)
	}
	if err := edge.Heartbeat(&req); err != nil {
		return err
	}
	// Who speaks for the member: the authenticated caller, never the body
	// ("" when member authentication is off).
	req.Principal, req.Transport = "", protocol.TransportHTTP
	if p, ok := c.Locals(auth.PrincipalKey).(auth.Principal); ok {
		req.Principal = p.Name()
	}
	httpx.AdoptRequestID(c, req.RequestID)
	// The heartbeat's requestId travels in the actor message itself; the
	// context carries only the deadline (no timer unless something waits on it).
	ctx, cancel := s.ctxFrom(start)
	defer cancel()
	resp, err := s.svc.Heartbeat(ctx, p, g, member, req)
	if err != nil {
		if he, _ := httpx.FromError(err); he.Status >= 500 {
			status = "ERROR"
		}
		return err
	}
	status = statusLabel(resp.Status)
	// The response is encoded without reflection (protocol.AppendHeartbeatResponse,
	// the same bytes as encoding/json) into a pooled buffer; SetBody copies it.
	buf := responseBufs.Get().(*[]byte)
	*buf = protocol.AppendHeartbeatResponse((*buf)[:0], &resp)
	c.Status(http.StatusOK)
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
	c.Response().SetBody(*buf)
	if cap(*buf) <= maxPooledResponse {
		responseBufs.Put(buf)
	}
	return nil
}

// Heartbeat response buffers; one holding a very large assignment is not kept.
const maxPooledResponse = 64 << 10

var responseBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// statusLabel bounds the metric label to the protocol's statuses.
func statusLabel(st protocol.Status) string {
	switch st {
	case protocol.StatusOK, protocol.StatusRetry, protocol.StatusSyncMetadata, protocol.StatusRevokePending,
		protocol.StatusUnknownMemberID, protocol.StatusFencedMemberEpoch, protocol.StatusUnsupportedProtocol,
		protocol.StatusInvalidRequest, protocol.StatusMemberIDInUse, protocol.StatusUnreleasedInstanceID:
		return string(st)
	}
	return "OTHER"
}
