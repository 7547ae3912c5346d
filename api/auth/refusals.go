package auth

import (
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Refused requests on audited routes are audited in bounded form, so that
// no caller can push other records out of a capped audit stream by sending
// requests it knows will be refused. Two kinds are summarised:
//
//	before authentication   no, wrong or locked-out credentials (401, 429 of
//	                        the failure limiter): keyed by client address
//	authenticated           a valid principal without the route's role or
//	                        scope (403), or over the admin rate limit (429):
//	                        keyed by principal, so a READ or MEMBER
//	                        credential flooding admin routes is bounded too
//
// The first refusal of a key in each window (audit.refusal-window) is
// written as it happens; the others are counted and written as one summary
// record per key when the window ends (result "refused", detail "N more
// refused requests…"). At most audit.refusal-addresses keys (addresses and
// principals together) are tracked per window; refusals of further keys are
// counted in one summary with ip "*". So a flood adds at most about two
// records per address or principal per window, and the records of
// successful admin changes stay in a capped stream.
type refusals struct {
	window  time.Duration
	maxKeys int

	mu       sync.Mutex
	counts   map[string]*refusalCount // address or "principal\x00"+name → refusals this window
	overflow int
	armed    bool
}

type refusalCount struct {
	n     int
	first AuditRecord
	authd bool // refused after authentication (keyed by principal)
}

func newRefusals(window time.Duration, maxKeys int) *refusals {
	return &refusals{window: window, maxKeys: maxKeys, counts: map[string]*refusalCount{}}
}

// refused records one refusal; it writes rec at once when it is the first
// of its key this window. authd: rec.Principal was authenticated and is the
// key; otherwise rec.IP is.
func (s *Guard) refused(rec AuditRecord, authd bool) {
	key := rec.IP
	if authd {
		key = "principal\x00" + rec.Principal
	}
	r := s.refusals
	r.mu.Lock()
	rc, seen := r.counts[key]
	first := false
	switch {
	case seen:
		rc.n++
	case len(r.counts) >= r.maxKeys:
		r.overflow++
	default:
		r.counts[key] = &refusalCount{n: 1, first: rec, authd: authd}
		first = true
	}
	if !r.armed {
		r.armed = true
		time.AfterFunc(r.window, s.flushRefusals)
	}
	r.mu.Unlock()
	if !first {
		return
	}
	if authd {
		rec.Detail = "refused to user " + rec.Principal + " (role, scope or rate limit); its further refusals in the next " + r.window.String() + " are summarised in one record"
	} else {
		rec.Detail = "refused before authentication; further refusals from this address in the next " + r.window.String() + " are summarised in one record"
	}
	s.writeAudit(rec)
}

// flushRefusals writes the window's summaries and starts a new window.
func (s *Guard) flushRefusals() {
	r := s.refusals
	r.mu.Lock()
	counts, overflow := r.counts, r.overflow
	r.counts, r.overflow, r.armed = map[string]*refusalCount{}, 0, false
	r.mu.Unlock()
	now := s.now()
	for _, rc := range counts {
		if rc.n <= 1 {
			continue
		}
		rec := rc.first
		rec.Time, rec.Result, rec.Duration = now, "refused", 0
		rec.RequestID, rec.RequestedBy, rec.Reason = "", "", ""
		if rc.authd {
			rec.Detail = strconv.Itoa(rc.n-1) + " more requests of user " + rec.Principal + " refused (role, scope or rate limit) in the last " + r.window.String() + " (the first is audited on its own)"
		} else {
			rec.Detail = strconv.Itoa(rc.n-1) + " more requests from " + rec.IP + " refused before authentication in the last " + r.window.String() + " (the first is audited on its own)"
		}
		s.writeAudit(rec)
	}
	if overflow > 0 {
		s.writeAudit(AuditRecord{Time: now, Principal: "anonymous", Result: "refused", IP: "*",
			Detail: strconv.Itoa(overflow) + " requests refused in the last " + r.window.String() +
				" from addresses or users beyond audit.refusal-addresses (" + strconv.Itoa(r.maxKeys) + ")"})
	}
}

// refusalKind classifies an audited request's answer: summarise is true for
// a refusal (401, 403, 429) that is audited in bounded form; authd tells
// whether it was refused to an authenticated principal (403 without the
// role or scope, 429 of the admin rate limit) or before authentication.
func RefusalKind(c *fiber.Ctx, status int) (summarise, authd bool) {
	if _, ok := c.Locals(PrincipalKey).(Principal); ok {
		return status == 403 || status == 429, true
	}
	return status == 401 || status == 429, false
}
