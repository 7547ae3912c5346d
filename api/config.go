package api

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Defaults applied by Config.withDefaults.
const (
	DefaultBodyLimit = 1 << 20 // 1 MiB
	// DefaultTokenTTL is 7 days: the reference's clients log in once and
	// never again, so a token must outlive a typical deployment.
	DefaultTokenTTL = 7 * 24 * time.Hour
	// MaxTokenTTL bounds auth.token-ttl.
	MaxTokenTTL           = 365 * 24 * time.Hour
	DefaultRequestTimeout = 10 * time.Second
	DefaultAdminRate      = 5.0 // admin mutations per second per principal
	DefaultAdminBurst     = 20
	// DefaultMaxShardCount bounds initialShardCount and targetShardCount.
	DefaultMaxShardCount = 4096
	// DefaultMaxBrowseCount bounds `count` of the message browsing route
	// (limits.browse-max-count); DefaultBrowseCount is its default.
	DefaultMaxBrowseCount = 1000
	DefaultBrowseCount    = 50
	// Failed-credential limits (authlimit.go): per address 30 then one per
	// 5 s; per user at one address 10 then one per 10 s.
	DefaultFailedAuthPerAddressRate  = 0.2
	DefaultFailedAuthPerAddressBurst = 30
	DefaultFailedAuthPerUserRate     = 0.1
	DefaultFailedAuthPerUserBurst    = 10
	// Refusal summaries of the audit log (refusals.go).
	DefaultAuditRefusalWindow    = time.Minute
	DefaultAuditRefusalAddresses = 1000
	// MinTokenSecretLength is the shortest accepted auth.token-secret (bytes).
	MinTokenSecretLength = 16
)

// Roles. WRITE implies READ; MEMBER is separate (heartbeats and producer
// routing). ADMIN (everything: READ, WRITE and MEMBER) and MONITOR (= READ)
// are the reference coordinator's names, accepted so that its configuration
// carries over.
const (
	RoleRead    = "READ"
	RoleWrite   = "WRITE"
	RoleMember  = "MEMBER"
	RoleAdmin   = "ADMIN"
	RoleMonitor = "MONITOR"
)

// roleList is the list of role names shown in errors.
const roleList = "READ, WRITE, MEMBER, ADMIN, MONITOR"

// Config is everything the HTTP front needs. The zero value is a valid
// development config: auth off, defaults for every limit.
type Config struct {
	// BodyLimit is the largest accepted request body in bytes (default 1 MiB);
	// larger bodies get 400 PAYLOAD_TOO_LARGE (SPEC §4). Bodies up to 4× the limit are
	// read before they are refused, so that the client reliably receives the
	// 400 (see hardBodyLimit).
	BodyLimit int
	Auth      AuthConfig
	// CoordinatorID names this node in health answers when the service leaves it empty.
	CoordinatorID string
	// AdminRateLimit limits admin mutations (create stream, delete group,
	// scale, rollback) per principal, and login attempts per client IP.
	AdminRateLimit RateLimit
	// FailedAuthPerAddress and FailedAuthPerUser limit failed credentials per
	// client address and per configured user at one address (authlimit.go;
	// auth.failed-auth-per-address-rate/-burst, auth.failed-auth-per-user-rate/-burst).
	// Zero values take the defaults; a negative rate disables the limit.
	FailedAuthPerAddress RateLimit
	FailedAuthPerUser    RateLimit
	// AuditRefusalWindow and AuditRefusalAddresses bound the audit records of
	// requests refused before authentication (refusals.go;
	// audit.refusal-window, audit.refusal-addresses).
	AuditRefusalWindow    time.Duration
	AuditRefusalAddresses int
	// MaxShardCount bounds initialShardCount (1..max) and targetShardCount
	// (0..max). Default 4096.
	MaxShardCount int
	// MaxBrowseCount bounds `count` of GET …/shards/{i}/messages
	// (limits.browse-max-count); a larger count is refused with 400.
	// Default DefaultMaxBrowseCount.
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

// AuthConfig configures authentication. With no Users, authentication is
// OFF: every route is open. That is for development only, and New logs a
// loud warning.
type AuthConfig struct {
	// TokenSecret signs bearer tokens (HMAC-SHA256); required, at least
	// MinTokenSecretLength bytes, when Users is not empty.
	TokenSecret string
	// PreviousTokenSecrets still verify tokens (never sign): the overlap
	// window of a secret rotation (tokens.go). Each at least
	// MinTokenSecretLength bytes.
	PreviousTokenSecrets []string
	// TokenTTL is the lifetime of tokens issued by /auth/login (default 7
	// days, at most MaxTokenTTL).
	TokenTTL time.Duration
	// AuthenticateMemberAPI requires the MEMBER role on heartbeats when
	// Users is not empty (with no users everything is open anyway).
	AuthenticateMemberAPI bool
	Users                 []User
}

// User is one configured principal. Password is either plain text or a
// bcrypt hash ($2a$, $2b$ or $2y$ prefix).
type User struct {
	Username string
	Password string
	Roles    []string
	// Streams scopes the user to these stream prefixes: "orders" exactly, or
	// "orders:*" for every prefix starting with "orders:"; "*" or empty =
	// every stream. Routes that name a stream refuse others with 403.
	Streams []string
	// Groups scopes the user to these consumer groups, same patterns as
	// Streams; empty = every group (groupscope.go).
	Groups []string
}

// RateLimit is a token bucket: RequestsPerSecond refill, Burst capacity.
// Zero values take the defaults (5/s, burst 20); a negative
// RequestsPerSecond disables limiting.
type RateLimit struct {
	RequestsPerSecond float64
	Burst             int
}

// AuthEnabled reports whether authentication is on (users configured).
func (c Config) AuthEnabled() bool { return len(c.Auth.Users) > 0 }

// Validate reports the first invalid setting, naming the field and value
// (never a password or secret). New panics on a config Validate rejects, so
// call Validate at start-up.
func (c Config) Validate() error {
	if c.BodyLimit < 0 {
		return fmt.Errorf("http.body-limit: %d must not be negative", c.BodyLimit)
	}
	if c.MaxBrowseCount < 0 {
		return fmt.Errorf("limits.browse-max-count: %d must not be negative", c.MaxBrowseCount)
	}
	if c.MaxShardCount < 0 {
		return fmt.Errorf("max shard count: %d must not be negative", c.MaxShardCount)
	}
	if c.AdminRateLimit.Burst < 0 {
		return fmt.Errorf("admin rate limit burst: %d must not be negative", c.AdminRateLimit.Burst)
	}
	for i, o := range c.AllowedOrigins {
		if _, err := normalizeOrigin(o); err != nil {
			return fmt.Errorf("http.allowed-origins[%d]: %q %v", i, o, err)
		}
	}
	if c.FailedAuthPerAddress.Burst < 0 {
		return fmt.Errorf("auth.failed-auth-per-address-burst: %d must not be negative", c.FailedAuthPerAddress.Burst)
	}
	if c.FailedAuthPerUser.Burst < 0 {
		return fmt.Errorf("auth.failed-auth-per-user-burst: %d must not be negative", c.FailedAuthPerUser.Burst)
	}
	a := c.Auth
	if a.TokenTTL < 0 || a.TokenTTL > MaxTokenTTL {
		return fmt.Errorf("auth.token-ttl: %s must be between 0 (default %s) and %s", a.TokenTTL, DefaultTokenTTL, MaxTokenTTL)
	}
	if len(a.Users) == 0 {
		return nil
	}
	if len(a.TokenSecret) < MinTokenSecretLength {
		return fmt.Errorf("auth.token-secret: must be at least %d bytes when auth.users is set (got %d)", MinTokenSecretLength, len(a.TokenSecret))
	}
	for i, p := range a.PreviousTokenSecrets {
		if len(p) < MinTokenSecretLength {
			return fmt.Errorf("auth.previous-token-secrets[%d]: must be at least %d bytes (got %d)", i, MinTokenSecretLength, len(p))
		}
		if p == a.TokenSecret {
			return fmt.Errorf("auth.previous-token-secrets[%d]: is the same as auth.token-secret; list only secrets being retired", i)
		}
	}
	seen := map[string]bool{}
	for i, u := range a.Users {
		if strings.TrimSpace(u.Username) == "" || strings.ContainsAny(u.Username, ":\r\n") {
			return fmt.Errorf("auth.users[%d].username: %q must be non-empty and contain no ':' or line breaks", i, u.Username)
		}
		if seen[u.Username] {
			return fmt.Errorf("auth.users[%d].username: %q is configured twice", i, u.Username)
		}
		seen[u.Username] = true
		if u.Password == "" {
			return fmt.Errorf("auth.users[%d].password: empty for user %q", i, u.Username)
		}
		if isBcrypt(u.Password) {
			if err := checkBcryptHash(u.Password); err != nil {
				return fmt.Errorf("auth.users[%d].password: user %q has an invalid bcrypt hash: %v", i, u.Username, err)
			}
		}
		if len(u.Roles) == 0 {
			return fmt.Errorf("auth.users[%d].roles: user %q has no roles (use %s)", i, u.Username, roleList)
		}
		for _, r := range u.Roles {
			if _, ok := parseRole(r); !ok {
				return fmt.Errorf("auth.users[%d].roles: %q is not a role (use %s)", i, r, roleList)
			}
		}
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.BodyLimit == 0 {
		c.BodyLimit = DefaultBodyLimit
	}
	if c.Auth.TokenTTL == 0 {
		c.Auth.TokenTTL = DefaultTokenTTL
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.MaxShardCount == 0 {
		c.MaxShardCount = DefaultMaxShardCount
	}
	if c.MaxBrowseCount == 0 {
		c.MaxBrowseCount = DefaultMaxBrowseCount
	}
	if c.AdminRateLimit.RequestsPerSecond == 0 {
		c.AdminRateLimit.RequestsPerSecond = DefaultAdminRate
	}
	if c.AdminRateLimit.Burst == 0 {
		c.AdminRateLimit.Burst = DefaultAdminBurst
	}
	if c.FailedAuthPerAddress.RequestsPerSecond == 0 {
		c.FailedAuthPerAddress.RequestsPerSecond = DefaultFailedAuthPerAddressRate
	}
	if c.FailedAuthPerAddress.Burst == 0 {
		c.FailedAuthPerAddress.Burst = DefaultFailedAuthPerAddressBurst
	}
	if c.FailedAuthPerUser.RequestsPerSecond == 0 {
		c.FailedAuthPerUser.RequestsPerSecond = DefaultFailedAuthPerUserRate
	}
	if c.FailedAuthPerUser.Burst == 0 {
		c.FailedAuthPerUser.Burst = DefaultFailedAuthPerUserBurst
	}
	if c.AuditRefusalWindow <= 0 {
		c.AuditRefusalWindow = DefaultAuditRefusalWindow
	}
	if c.AuditRefusalAddresses <= 0 {
		c.AuditRefusalAddresses = DefaultAuditRefusalAddresses
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.ServerVersion == "" {
		c.ServerVersion = "dev"
	}
	return c
}
