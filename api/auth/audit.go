package auth

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"
)

// Audit log. Every admin mutation (create or delete stream, create or
// delete group, scale, rollback, revoke a user's tokens) and every login is written, once the answer is known and
// after authentication, as one structured log line at INFO with the message
// "audit":
//
//	principal   who (the authenticated user; for login the username when it
//	            names a configured user; "anonymous" with authentication off)
//	method, route, path
//	status      the HTTP status answered; result: ok (2xx), denied
//	            (401/403/429), rejected (other 4xx), error (5xx), locked (a
//	            failed-credential lock-out began, authlimit.go), refused
//	            (a summary of requests refused before authentication)
//	durationMs  time to answer
//	detail      what a locked or refused record means, with its count
//	ip          the client IP
//	caller.requestId, caller.requestedBy, caller.reason
//	            chosen by the caller (X-Request-Id, body fields), not
//	            checked by the server: never trust them for who did it
//
// No value derived from a secret is written: no body hash (a login body holds
// a password). Refused requests (401 and 429 before authentication; 403 and
// 429 of an authenticated principal without the role or scope) are not
// audited one by one: the first per address (or principal) in each audit
// window is, and the rest become one summary record (refusals.go), so
// floods of requests bound to be refused cannot push the records of real
// changes out of a capped stream. Control
// characters are escaped (\n, \x1b...) in every field a sink receives
// (AuditRecord.Fields). An AuditSink (WithAuditSink) receives each record as
// well, e.g. to append it to a capped Redis stream.

// AuditRecord is one audited request.
type AuditRecord struct {
	Time      time.Time
	Principal string
	Method    string
	Route     string
	Path      string
	// RequestID, RequestedBy and Reason are chosen by the caller.
	RequestID   string
	RequestedBy string
	Reason      string
	Status      int
	Result      string
	Duration    time.Duration
	Detail      string
	IP          string
}

// Fields is the record as flat name/value pairs, control characters
// escaped; caller-chosen fields are prefixed "caller.".
func (r AuditRecord) Fields() []any {
	return []any{
		"time", r.Time.UTC().Format(time.RFC3339Nano), "principal", escapeControl(r.Principal),
		"method", r.Method, "route", escapeControl(r.Route), "path", escapeControl(r.Path),
		"status", strconv.Itoa(r.Status), "result", r.Result,
		"durationMs", strconv.FormatInt(r.Duration.Milliseconds(), 10), "detail", escapeControl(r.Detail),
		"ip", escapeControl(r.IP), "caller.requestId", escapeControl(r.RequestID),
		"caller.requestedBy", escapeControl(r.RequestedBy), "caller.reason", escapeControl(r.Reason),
	}
}

// escapeControl writes control characters as Go escapes (\n, \x00, \u2028 ...).
func escapeControl(v string) string {
	if !strings.ContainsFunc(v, unicode.IsControl) && !strings.ContainsAny(v, "\u2028\u2029") {
		return v
	}
	q := strconv.Quote(v)
	return q[1 : len(q)-1]
}

// AuditSink receives audit records besides the log. Audit must not block:
// the request has been answered but its handler goroutine waits.
type AuditSink interface {
	Audit(AuditRecord)
}

type auditor struct{ sink AuditSink }

const auditUserKey = "rsc.auditUser"

// audited wraps an admin mutation or login: it runs the rest of the chain
// (authentication included), then writes the audit record.
func (s *Guard) Audited(c *fiber.Ctx) error {
	start := time.Now()
	err := c.Next()
	status := c.Response().StatusCode()
	if err != nil {
		he, _ := httpx.FromError(err)
		status = he.Status
	}
	body := c.Request().Body()
	rec := AuditRecord{
		Time:      start,
		Principal: auditPrincipal(c),
		Method:    httpx.MethodLabel(c),
		Route:     strings.Clone(httpx.RouteLabel(c)),
		Path:      strings.Clone(c.Path()),
		RequestID: httpx.RequestID(c),
		Status:    status,
		Result:    auditResult(status),
		Duration:  time.Since(start),
		IP:        strings.Clone(c.IP()),
	}
	if len(body) > 0 && !strings.HasSuffix(rec.Route, "/auth/login") {
		var f struct {
			RequestedBy string `json:"requestedBy"`
			Reason      string `json:"reason"`
		}
		if json.Unmarshal(body, &f) == nil {
			rec.RequestedBy, rec.Reason = httpx.Truncate(f.RequestedBy, 200), httpx.Truncate(f.Reason, 500)
		}
	}
	if summarise, authd := RefusalKind(c, status); summarise {
		s.refused(rec, authd)
	} else {
		s.writeAudit(rec)
	}
	return err
}

// writeAudit logs rec and hands it to the sink.
func (s *Guard) writeAudit(rec AuditRecord) {
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "audit",
		slog.String("principal", rec.Principal), slog.String("method", rec.Method),
		slog.String("route", rec.Route), slog.String("path", rec.Path),
		slog.Int("status", rec.Status), slog.String("result", rec.Result),
		slog.Int64("durationMs", rec.Duration.Milliseconds()), slog.String("detail", rec.Detail),
		slog.String("ip", rec.IP),
		slog.Group("caller", slog.String("requestId", rec.RequestID), slog.String("requestedBy", rec.RequestedBy),
			slog.String("reason", rec.Reason)))
	if s.audit != nil && s.audit.sink != nil {
		s.audit.sink.Audit(rec)
	}
}

// auditPrincipal is the authenticated user, the login's (configured) user,
// or "anonymous".
func auditPrincipal(c *fiber.Ctx) string {
	if p, ok := c.Locals(PrincipalKey).(Principal); ok {
		return p.name
	}
	if u, ok := c.Locals(auditUserKey).(string); ok && u != "" {
		return u
	}
	return "anonymous"
}

func auditResult(status int) string {
	switch {
	case status < 300:
		return "ok"
	case status == 401 || status == 403 || status == 429:
		return "denied"
	case status < 500:
		return "rejected"
	}
	return "error"
}
