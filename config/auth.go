package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Auth configures authentication of the HTTP API: the one definition of
// users, roles and credential limits (api.New takes it as it is and calls
// Validate).
type Auth struct {
	TokenSecret           string        `koanf:"token-secret" secret:"true" help:"HMAC secret for login tokens (>= 16 bytes; required when users are set)"`
	PreviousTokenSecrets  []string      `koanf:"previous-token-secrets" secret:"true" help:"retired token secrets that still verify (never sign) tokens during a rotation; remove after token-ttl"`
	TokenTTL              time.Duration `koanf:"token-ttl" default:"168h" validate:"gt=0,min=1m0s,max=8760h0m0s" help:"lifetime of a login token (1m..8760h)"`
	TokenRevocationWindow time.Duration `koanf:"token-revocation-window" default:"10s" validate:"min=1s,max=10m0s" help:"how long a token revoked on one node may still work on the others (1s..10m); each node re-reads the revocations after half of it"`
	AuthenticateMemberAPI bool          `koanf:"authenticate-member-api" default:"true" help:"require a MEMBER credential on the member heartbeat API whenever auth.users is set (set false to opt out)"`
	AllowUnauthenticated  bool          `koanf:"allow-unauthenticated" help:"allow a node listening beyond loopback with no auth.users (every route open); refused at start otherwise"`
	Users                 []User        `koanf:"users" secret:"true" shape:"{username, password, roles}" validate:"dive" help:"API users (file or RSC_AUTH_USERS as a YAML/JSON list)"`
	AdminRateLimit        float64       `koanf:"admin-rate-limit" default:"10" validate:"finite,gt=0" hint:"requests per second" help:"sustained admin API requests per second"`
	AdminRateBurst        int           `koanf:"admin-rate-burst" default:"20" validate:"min=1" help:"admin API burst size"`
	// Failed credentials: a token bucket per client address and one per user at an address.
	FailedAuthPerAddressRate  float64 `koanf:"failed-auth-per-address-rate" default:"0.2" validate:"finite,gt=0" hint:"failed credentials regained per second" help:"failed credentials per second one client address regains after its burst (then 429)"`
	FailedAuthPerAddressBurst int     `koanf:"failed-auth-per-address-burst" default:"30" validate:"min=1" help:"failed credentials one client address may send before it is refused 429"`
	FailedAuthPerUserRate     float64 `koanf:"failed-auth-per-user-rate" default:"0.1" validate:"finite,gt=0" hint:"failed credentials regained per second" help:"failed credentials per second one user at one address regains after its burst"`
	FailedAuthPerUserBurst    int     `koanf:"failed-auth-per-user-burst" default:"10" validate:"min=1" help:"failed credentials for one user from one address before that user is refused 429 there"`
}

// User is one API user. Password is plain text or a bcrypt hash ($2a$/$2b$/$2y$).
type User struct {
	Username string   `koanf:"username"`
	Password string   `koanf:"password"`
	Roles    []string `koanf:"roles"`
	// Streams and Groups scope the user to these stream prefixes and groups
	// ("orders", or "orders:*" for every name starting with "orders:"); empty = all.
	Streams []string `koanf:"streams" validate:"dive,scope"`
	Groups  []string `koanf:"groups" validate:"dive,groupscope"`
}

// Roles a User may hold. WRITE implies READ; MEMBER: heartbeats and producer
// routing; ADMIN (READ, WRITE and MEMBER) and MONITOR (= READ) are aliases.
const (
	RoleRead    = "READ"
	RoleWrite   = "WRITE"
	RoleMember  = "MEMBER"
	RoleAdmin   = "ADMIN"
	RoleMonitor = "MONITOR"
)

// Roles lists every role name, in the order errors show them.
var Roles = []string{RoleRead, RoleWrite, RoleMember, RoleAdmin, RoleMonitor}

// MinTokenSecretLen is the shortest accepted token secret, in bytes.
const MinTokenSecretLen = 16

// Validate checks the auth section on its own: its bounds and the rules
// written in check. Config.Validate covers it too; api.New calls this.
func (a Auth) Validate() error {
	var errs []error
	bad := collect(&errs)
	checkBounds("auth", a, bad)
	a.check(bad, &errs)
	return errors.Join(errs...)
}

// check holds the rules of the auth section no tag can say: secrets (never
// echoed), users and the MEMBER role the member API needs.
func (a Auth) check(bad badFunc, errs *[]error) {
	secret := func(key string, format string, args ...any) {
		*errs = append(*errs, fmt.Errorf("config: "+key+" = "+format, args...))
	}
	if n := len(a.TokenSecret); n > 0 && n < MinTokenSecretLen {
		secret("auth.token-secret", "(%d bytes, redacted): must be at least %d bytes", n, MinTokenSecretLen)
	} else if n == 0 && len(a.Users) > 0 {
		secret("auth.token-secret", "\"\": is required (at least %d bytes) when auth.users is set", MinTokenSecretLen)
	}
	for i, p := range a.PreviousTokenSecrets {
		key := fmt.Sprintf("auth.previous-token-secrets[%d]", i)
		if len(p) < MinTokenSecretLen {
			secret(key, "(%d bytes, redacted): must be at least %d bytes", len(p), MinTokenSecretLen)
		} else if p == a.TokenSecret {
			secret(key, "(redacted): is auth.token-secret itself; list only secrets being retired")
		}
	}
	names := map[string]int{}
	hasMember := false
	for i, u := range a.Users {
		key := fmt.Sprintf("auth.users[%d]", i)
		switch j, dup := names[u.Username]; {
		case u.Username == "":
			bad(key+".username", u.Username, "must not be empty")
		case strings.ContainsAny(u.Username, ": \t\r\n"):
			bad(key+".username", u.Username, "must not contain ':' or whitespace (HTTP Basic Auth cannot carry it)")
		case dup:
			bad(key+".username", u.Username, "is already used by auth.users[%d]", j)
		default:
			names[u.Username] = i
		}
		if _, err := bcrypt.Cost([]byte(u.Password)); u.Password == "" {
			bad(key+".password", "", "must not be empty")
		} else if IsBcrypt(u.Password) && err != nil {
			secret(key+".password", "(redacted): looks like a bcrypt hash but is malformed: %v", err)
		}
		if len(u.Roles) == 0 {
			bad(key+".roles", u.Roles, "must name at least one of %s", strings.Join(Roles, ", "))
		}
		for j, r := range u.Roles {
			if !slices.Contains(Roles, r) {
				bad(fmt.Sprintf("%s.roles[%d]", key, j), r, "must be one of %s", strings.Join(Roles, ", "))
			}
			hasMember = hasMember || r == RoleMember || r == RoleAdmin
		}
	}
	if len(a.Users) > 0 && a.AuthenticateMemberAPI && !hasMember {
		bad("auth.authenticate-member-api", true, "needs at least one user in auth.users with role %s (or %s), or no member could heartbeat; add one, or set it false to leave heartbeats open", RoleMember, RoleAdmin)
	}
}

// IsBcrypt reports whether a password is a bcrypt hash ($2a$, $2b$, $2y$)
// rather than plain text.
func IsBcrypt(p string) bool {
	return strings.HasPrefix(p, "$2a$") || strings.HasPrefix(p, "$2b$") || strings.HasPrefix(p, "$2y$")
}

// validStreamScope checks one auth.users[].streams or .groups entry: a
// prefix, or a prefix followed by "*" (every name that starts with it).
func validStreamScope(p string) error {
	switch name := strings.TrimSuffix(p, "*"); {
	case p == "*":
	case strings.TrimSpace(name) == "":
		return errors.New("must be a stream prefix, a prefix followed by '*', or '*'")
	case strings.ContainsAny(name, "{}*"):
		return errors.New("may not contain '{', '}' or '*' except one trailing '*'")
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return errors.New("may not contain control characters")
	}
	return nil
}
