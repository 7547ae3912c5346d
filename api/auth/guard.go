package auth

import (
	"context"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/config"
)

// Config is what the guard needs of the server's configuration.
type Config struct {
	// Auth is the auth section: users, roles, scopes, token secrets, rate
	// limits. No users: authentication is off (development only).
	Auth config.Auth
	// AuditRefusalWindow and AuditRefusalAddresses bound the audit records
	// of refused requests (refusals.go).
	AuditRefusalWindow    time.Duration
	AuditRefusalAddresses int
}

// Guard authenticates, authorizes, rate-limits and audits the requests of
// one server: its fiber handlers (Require, RateLimited, Audited, the scope
// guards) go in front of a route's handler, and it answers login and token
// revocation. Safe for concurrent use.
type Guard struct {
	cfg      Config
	log      *slog.Logger
	metrics  *metrics.Metrics
	now      func() time.Time
	auth     *authenticator  // nil: auth off
	tokens   *tokenSigner    // nil: auth off
	limiter  *limiter        // nil: no rate limiting
	fails    *failureLimiter // authlimit.go
	refusals *refusals       // refusals.go
	audit    *auditor        // audit.go
	gens     *tokenGens      // nil: auth off or no generation store
	reqCtx   func(*fiber.Ctx) (context.Context, context.CancelFunc)
}

// Deps are the server's parts the guard uses: logger, metrics, clock, the
// optional audit sink and token-generation store, and how a Service call's
// context is made for a request (revocation).
type Deps struct {
	Log      *slog.Logger
	Metrics  *metrics.Metrics
	Now      func() time.Time
	Sink     AuditSink        // nil: audit records go to the log only
	GenStore TokenGenerations // nil: tokens cannot be revoked
	ReqCtx   func(*fiber.Ctx) (context.Context, context.CancelFunc)
}

// New returns the guard for cfg; with no users it logs that authentication
// is off.
func New(cfg Config, d Deps) *Guard {
	s := &Guard{cfg: cfg, log: d.Log, metrics: d.Metrics, now: d.Now, reqCtx: d.ReqCtx}
	if d.Sink != nil {
		s.audit = &auditor{sink: d.Sink}
	}
	if len(cfg.Auth.Users) > 0 {
		s.tokens = NewTokenSigner(cfg.Auth.TokenSecret, cfg.Auth.PreviousTokenSecrets, cfg.Auth.TokenTTL, s.now)
		s.auth = newAuthenticator(cfg, s.tokens)
		if d.GenStore != nil {
			s.gens = newTokenGens(d.GenStore, cfg.Auth.TokenRevocationWindow, s.now, s.log, s.metrics.TokenGenerationReadFailed)
		}
	} else {
		s.log.Warn("AUTHENTICATION IS OFF: no auth.users configured, every route (admin included) is open to anyone who can reach this port. Development only.")
	}
	s.limiter = newLimiter(cfg.Auth.AdminRateLimit, cfg.Auth.AdminRateBurst, s.now)
	s.fails = newFailureLimiter(cfg, s.now)
	s.refusals = newRefusals(cfg.AuditRefusalWindow, cfg.AuditRefusalAddresses)
	return s
}

// CachedPasswords is how many users' accepted passwords are remembered now
// (at most one per configured user; VerifiedTTL).
func (s *Guard) CachedPasswords() int {
	if s.auth == nil {
		return 0
	}
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	return len(s.auth.verified)
}
