package api

import (
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Refusals before authentication (no, wrong or locked-out credentials on an
// audited route) are audited in bounded form: the first refusal from an
// address in each window (audit.refusal-window) is written as it happens,
// the others are counted and written as one summary record per address
// when the window ends (result "refused", detail "N more refused
// requests…"). At most audit.refusal-addresses addresses are tracked per
// window; refusals from further addresses are counted in one summary with
// ip "*". So an anonymous flood adds at most about two records per address
// per window, and authenticated records stay in a capped stream.
type refusals struct {
	window   time.Duration
	maxAddrs int

	mu       sync.Mutex
	counts   map[string]*refusalCount // address → refusals this window
	overflow int
	armed    bool
}

type refusalCount struct {
	n     int
	first AuditRecord
}

func newRefusals(window time.Duration, maxAddrs int) *refusals {
	return &refusals{window: window, maxAddrs: maxAddrs, counts: map[string]*refusalCount{}}
}

// refused records one refusal; it writes rec at once when it is the first
// from its address this window.
func (s *Server) refused(rec AuditRecord) {
	r := s.refusals
	r.mu.Lock()
	rc, seen := r.counts[rec.IP]
	first := false
	switch {
	case seen:
		rc.n++
	case len(r.counts) >= r.maxAddrs:
		r.overflow++
	default:
		r.counts[rec.IP] = &refusalCount{n: 1, first: rec}
		first = true
	}
	if !r.armed {
		r.armed = true
		time.AfterFunc(r.window, s.flushRefusals)
	}
	r.mu.Unlock()
	if first {
		rec.Detail = "refused before authentication; further refusals from this address in the next " + r.window.String() + " are summarised in one record"
		s.writeAudit(rec)
	}
}

// flushRefusals writes the window's summaries and starts a new window.
func (s *Server) flushRefusals() {
	r := s.refusals
	r.mu.Lock()
	counts, overflow := r.counts, r.overflow
	r.counts, r.overflow, r.armed = map[string]*refusalCount{}, 0, false
	r.mu.Unlock()
	now := s.now()
	for ip, rc := range counts {
		if rc.n > 1 {
			rec := rc.first
			rec.Time, rec.Result, rec.Duration = now, "refused", 0
			rec.RequestID, rec.RequestedBy, rec.Reason = "", "", ""
			rec.Detail = strconv.Itoa(rc.n-1) + " more requests from " + ip + " refused before authentication in the last " + r.window.String() + " (the first is audited on its own)"
			s.writeAudit(rec)
		}
	}
	if overflow > 0 {
		s.writeAudit(AuditRecord{Time: now, Principal: "anonymous", Result: "refused", IP: "*",
			Detail: strconv.Itoa(overflow) + " requests refused before authentication in the last " + r.window.String() +
				" from addresses beyond audit.refusal-addresses (" + strconv.Itoa(r.maxAddrs) + ")"})
	}
}

// refusedBeforeAuth reports whether an audited request was refused without
// an authenticated principal: 401, or 429 from the failure limiter.
func refusedBeforeAuth(c *fiber.Ctx, status int) bool {
	if _, ok := c.Locals(principalKey).(principal); ok {
		return false
	}
	return status == 401 || status == 429
}
