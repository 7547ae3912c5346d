package api

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/config"
)

const (
	// DefaultRequestTimeout bounds each Service call when Config.RequestTimeout is 0.
	DefaultRequestTimeout = 10 * time.Second
	// DefaultBrowseCount is the page size of GET …/shards/{i}/messages without `count`.
	DefaultBrowseCount = 50
)

// Config is everything the HTTP front needs. The zero value is a valid
// development config: auth off, and every setting that comes from config/
// left 0 takes config.Default()'s value.
type Config struct {
	// BodyLimit is the largest accepted request body in bytes (http.body-limit);
	// larger bodies get 400 PAYLOAD_TOO_LARGE (SPEC §4). Bodies up to 4× the limit are
	// read before they are refused, so that the client reliably receives the
	// 400 (see hardBodyLimit).
	BodyLimit int
	// Auth is the auth section as config.Load returns it: users and roles,
	// token secrets and lifetime, the admin rate limit (admin mutations per
	// principal, logins per client IP) and the failed-credential limits
	// (authlimit.go). With no users authentication is OFF: every route is
	// open (development only; New logs a loud warning).
	Auth config.Auth
	// CoordinatorID names this node in health answers when the service leaves it empty.
	CoordinatorID string
	// AuditRefusalWindow and AuditRefusalAddresses bound the audit records of
	// requests refused before authentication (refusals.go;
	// audit.refusal-window, audit.refusal-addresses).
	AuditRefusalWindow    time.Duration
	AuditRefusalAddresses int
	// MaxShardCount bounds initialShardCount (1..max) and targetShardCount
	// (0..max) (resharding.max-shard-count).
	MaxShardCount int
	// MaxBrowseCount bounds `count` of GET …/shards/{i}/messages
	// (limits.browse-max-count); a larger count is refused with 400.
	MaxBrowseCount int
	// RequestTimeout bounds each Service call (default 10 s); a call that
	// runs out of time is answered 503.
	RequestTimeout time.Duration
	// TrustedProxies lists proxy IPs or CIDRs (e.g. the ingress) whose
	// X-Forwarded-For header names the client IP used for login rate limiting
	// and logs. Empty: the TCP peer address is the client IP.
	TrustedProxies []string
	// AllowedOrigins lists origins ("https://ops.example.com") whose pages
	// may send state-changing requests (http.allowed-origins, origin.go).
	// Empty: only the coordinator's own origin and non-browser clients.
	AllowedOrigins []string
	// ServerVersion is reported by /monitoring/compatibility.
	ServerVersion string
	// Logger receives warnings and server errors; nil means slog.Default().
	// Passwords, tokens and Authorization headers are never logged.
	Logger *slog.Logger
}

// AuthEnabled reports whether authentication is on (users configured).
func (c Config) AuthEnabled() bool { return len(c.Auth.Users) > 0 }

// Validate reports every invalid setting, naming the key and value (never a
// password or secret): the auth section is checked by config.Auth.Validate,
// the one definition of its rules. New panics on a config Validate rejects,
// so call Validate at start-up.
func (c Config) Validate() error {
	if c.BodyLimit < 0 {
		return fmt.Errorf("http.body-limit: %d must not be negative", c.BodyLimit)
	}
	if c.MaxBrowseCount < 0 {
		return fmt.Errorf("limits.browse-max-count: %d must not be negative", c.MaxBrowseCount)
	}
	if c.MaxShardCount < 0 {
		return fmt.Errorf("resharding.max-shard-count: %d must not be negative", c.MaxShardCount)
	}
	for i, o := range c.AllowedOrigins {
		if _, err := normalizeOrigin(o); err != nil {
			return fmt.Errorf("http.allowed-origins[%d]: %q %v", i, o, err)
		}
	}
	return c.withDefaults().Auth.Validate()
}

// withDefaults fills what is left 0 from config.Default(), so that the
// coordinator and a Config built by hand (tests) share one set of defaults.
func (c Config) withDefaults() Config {
	def := config.Default()
	set := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	set(&c.BodyLimit, int(def.HTTP.BodyLimit))
	set(&c.MaxShardCount, def.Resharding.MaxShardCount)
	set(&c.MaxBrowseCount, def.Limits.BrowseMaxCount)
	a, d := &c.Auth, def.Auth
	set(&a.AdminRateBurst, d.AdminRateBurst)
	set(&a.FailedAuthPerAddressBurst, d.FailedAuthPerAddressBurst)
	set(&a.FailedAuthPerUserBurst, d.FailedAuthPerUserBurst)
	for _, r := range []struct{ v, d *float64 }{
		{&a.AdminRateLimit, &d.AdminRateLimit},
		{&a.FailedAuthPerAddressRate, &d.FailedAuthPerAddressRate},
		{&a.FailedAuthPerUserRate, &d.FailedAuthPerUserRate},
	} {
		if *r.v == 0 {
			*r.v = *r.d
		}
	}
	if a.TokenTTL == 0 {
		a.TokenTTL = d.TokenTTL
	}
	if a.TokenRevocationWindow == 0 {
		a.TokenRevocationWindow = d.TokenRevocationWindow
	}
	if c.AuditRefusalWindow <= 0 {
		c.AuditRefusalWindow = def.Audit.RefusalWindow
	}
	if c.AuditRefusalAddresses <= 0 {
		c.AuditRefusalAddresses = def.Audit.RefusalAddresses
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.ServerVersion == "" {
		c.ServerVersion = "dev"
	}
	return c
}
