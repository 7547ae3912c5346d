package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Audit log. Every admin mutation (create stream, create or delete group,
// scale, rollback) and every login attempt is written, once the answer is
// known, as one structured log line at INFO with the message "audit":
//
//	principal   who (the authenticated user; for login the username when it
//	            names a configured user; "anonymous" with authentication off
//	            or before authentication succeeded)
//	method, route, path
//	requestId   the request's id (requestid.go), also in X-Request-Id
//	requestedBy, reason   from the body, when it has them
//	status      the HTTP status answered; result: ok (2xx), denied
//	            (401/403/429), rejected (other 4xx), error (5xx)
//	durationMs  time to answer
//	bodySha256  first 16 hex digits of the SHA-256 of the request body
//	            ("" for an empty body): ties the line to a body without
//	            logging it (a login body holds a password)
//	ip          the client IP
//
// Refused attempts (wrong credentials, missing role, rate limit) are
// audited too. Passwords, tokens and Authorization headers are never
// written. An AuditSink (WithAuditSink) receives each record as well, e.g.
// to append it to a capped Redis stream.

// AuditRecord is one audited request.
type AuditRecord struct {
	Time        time.Time
	Principal   string
	Method      string
	Route       string
	Path        string
	RequestID   string
	RequestedBy string
	Reason      string
	Status      int
	Result      string
	Duration    time.Duration
	BodySHA256  string
	IP          string
}

// AuditSink receives audit records besides the log. Audit must not block:
// the request has been answered but its handler goroutine waits.
type AuditSink interface {
	Audit(AuditRecord)
}

// WithAuditSink sends every audit record to sink as well as to the log.
func WithAuditSink(sink AuditSink) Option { return func(s *Server) { s.audit = &auditor{sink: sink} } }

type auditor struct{ sink AuditSink }

const auditUserKey = "rsc.auditUser"

// audited wraps an admin mutation or login: it runs the rest of the chain
// (authentication included), then writes the audit record.
func (s *Server) audited(c *fiber.Ctx) error {
	start := time.Now()
	err := c.Next()
	status := c.Response().StatusCode()
	if err != nil {
		he, _ := toHTTPError(err)
		status = he.status
	}
	body := c.Request().Body()
	rec := AuditRecord{
		Time:      start,
		Principal: auditPrincipal(c),
		Method:    methodLabel(c),
		Route:     strings.Clone(routeLabel(c)),
		Path:      strings.Clone(c.Path()),
		RequestID: requestID(c),
		Status:    status,
		Result:    auditResult(status),
		Duration:  time.Since(start),
		IP:        strings.Clone(c.IP()),
	}
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		rec.BodySHA256 = hex.EncodeToString(sum[:8])
		var f struct {
			RequestedBy string `json:"requestedBy"`
			Reason      string `json:"reason"`
		}
		if json.Unmarshal(body, &f) == nil {
			rec.RequestedBy, rec.Reason = truncate(f.RequestedBy, 200), truncate(f.Reason, 500)
		}
	}
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "audit",
		slog.String("principal", rec.Principal), slog.String("method", rec.Method),
		slog.String("route", rec.Route), slog.String("path", rec.Path),
		slog.String("requestId", rec.RequestID), slog.String("requestedBy", rec.RequestedBy),
		slog.String("reason", rec.Reason), slog.Int("status", rec.Status), slog.String("result", rec.Result),
		slog.Int64("durationMs", rec.Duration.Milliseconds()), slog.String("bodySha256", rec.BodySHA256),
		slog.String("ip", rec.IP))
	if s.audit != nil && s.audit.sink != nil {
		s.audit.sink.Audit(rec)
	}
	return err
}

// auditPrincipal is the authenticated user, the login's (configured) user,
// or "anonymous".
func auditPrincipal(c *fiber.Ctx) string {
	if p, ok := c.Locals(principalKey).(principal); ok {
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
