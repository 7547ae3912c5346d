package api

import "github.com/redisstream/coordinator/api/auth"

// AuditRecord is one audit record (auth.AuditRecord).
type AuditRecord = auth.AuditRecord

// AuditSink receives audit records besides the log (auth.AuditSink).
type AuditSink = auth.AuditSink

// TokenGenerations is the store of per-user token generations
// (auth.TokenGenerations).
type TokenGenerations = auth.TokenGenerations

// WithAuditSink sends every audit record to sink as well as to the log.
func WithAuditSink(sink AuditSink) Option { return func(s *Server) { s.auditSink = sink } }

// WithTokenGenerations enables token revocation (the revoke route and the
// check on every bearer request).
func WithTokenGenerations(tg TokenGenerations) Option {
	return func(s *Server) { s.genStore = tg }
}
