package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Limits enforced by Validate.
const (
	MinBodyLimit      = 1 * KiB
	MaxBodyLimit      = 64 * MiB
	MaxInitialShards  = 4096
	MinTokenSecretLen = 16
	MinTokenTTL       = time.Minute
	MaxTokenTTL       = 365 * 24 * time.Hour
	// MaxLimit caps every limits.* value: the limits exist to bound state.
	MaxLimit = 1_000_000
	// MaxBrowseCount caps limits.browse-max-count: one page is one reply.
	MaxBrowseCount = 10_000
)

var (
	validRoles     = []string{RoleRead, RoleWrite, RoleMember, RoleAdmin, RoleMonitor}
	validProviders = []string{ProviderSingle, ProviderAutomanaged, ProviderKubernetes, ProviderTest}
	validLevels    = []string{"debug", "info", "warn", "error"}
	validFormats   = []string{"text", "json"}
	validCreation  = []string{CreationImplicit, CreationExplicit}
)

// Validate checks every setting and returns all problems joined
// (errors.Join), one per line, each naming the key and the offending value:
//
//	config: coordination.member-lease-ttl = 2s: must be greater than coordination.heartbeat-interval (3s)
//
// Secret values are never echoed. Advice that is not an error is returned by
// Warnings.
func (c Config) Validate() error {
	var errs []error
	bad := func(key string, value any, format string, args ...any) {
		errs = append(errs, fmt.Errorf("config: %s = %s: %s", key, show(value), fmt.Sprintf(format, args...)))
	}

	// http
	if err := checkHostPort(c.HTTP.Addr, true, true); err != nil {
		bad("http.addr", c.HTTP.Addr, "%v", err)
	}
	for i, o := range c.HTTP.AllowedOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			bad(fmt.Sprintf("http.allowed-origins[%d]", i), o, "must be an origin scheme://host[:port] (http or https, no path), e.g. https://ops.example.com")
		}
	}
	if c.HTTP.BodyLimit < MinBodyLimit || c.HTTP.BodyLimit > MaxBodyLimit {
		bad("http.body-limit", c.HTTP.BodyLimit, "must be between %s and %s", MinBodyLimit, MaxBodyLimit)
	}

	// runtime
	if _, err := ParseMemoryLimit(c.Runtime.MemoryLimit); err != nil {
		bad("runtime.memory-limit", c.Runtime.MemoryLimit, "%v", err)
	}

	// redis
	seen := map[string]bool{}
	for i, a := range c.Redis.Addrs {
		key := fmt.Sprintf("redis.addrs[%d]", i)
		if err := checkHostPort(a, false, false); err != nil {
			bad(key, a, "%v", err)
		} else if seen[a] {
			bad(key, a, "is listed twice")
		}
		seen[a] = true
	}
	if c.Redis.DB < 0 {
		bad("redis.db", c.Redis.DB, "must not be negative")
	}
	positive := func(key string, d interface{ Nanoseconds() int64 }) {
		if d.Nanoseconds() <= 0 {
			bad(key, d, "must be greater than 0")
		}
	}
	positive("redis.dial-timeout", c.Redis.DialTimeout)
	positive("redis.read-timeout", c.Redis.ReadTimeout)
	positive("redis.write-timeout", c.Redis.WriteTimeout)

	// store
	if err := checkName(c.Store.KeyPrefix); err != nil {
		bad("store.key-prefix", c.Store.KeyPrefix, "%v", err)
	}

	// auth
	a := c.Auth
	if n := len(a.TokenSecret); n > 0 && n < MinTokenSecretLen {
		errs = append(errs, fmt.Errorf("config: auth.token-secret = (%d bytes, redacted): must be at least %d bytes", n, MinTokenSecretLen))
	} else if n == 0 && len(a.Users) > 0 {
		errs = append(errs, fmt.Errorf("config: auth.token-secret = \"\": is required (at least %d bytes) when auth.users is set", MinTokenSecretLen))
	}
	positive("auth.token-ttl", a.TokenTTL)
	if a.TokenTTL > 0 && (a.TokenTTL < MinTokenTTL || a.TokenTTL > MaxTokenTTL) {
		bad("auth.token-ttl", a.TokenTTL, "must be between %s and %s", MinTokenTTL, MaxTokenTTL)
	}
	for i, p := range a.PreviousTokenSecrets {
		key := fmt.Sprintf("auth.previous-token-secrets[%d]", i)
		if len(p) < MinTokenSecretLen {
			errs = append(errs, fmt.Errorf("config: %s = (%d bytes, redacted): must be at least %d bytes", key, len(p), MinTokenSecretLen))
		} else if p == a.TokenSecret {
			errs = append(errs, fmt.Errorf("config: %s = (redacted): is auth.token-secret itself; list only secrets being retired", key))
		}
	}
	if math.IsNaN(a.AdminRateLimit) || math.IsInf(a.AdminRateLimit, 0) {
		bad("auth.admin-rate-limit", a.AdminRateLimit, "must be a number")
	} else if !(a.AdminRateLimit > 0) {
		bad("auth.admin-rate-limit", a.AdminRateLimit, "must be greater than 0 (requests per second)")
	}
	if a.AdminRateBurst < 1 {
		bad("auth.admin-rate-burst", a.AdminRateBurst, "must be at least 1")
	}
	a.validateFailureLimits(bad)
	names := map[string]int{}
	hasMember := false
	for i, u := range a.Users {
		key := fmt.Sprintf("auth.users[%d]", i)
		switch {
		case u.Username == "":
			bad(key+".username", u.Username, "must not be empty")
		case strings.ContainsAny(u.Username, ": \t\r\n"):
			bad(key+".username", u.Username, "must not contain ':' or whitespace (HTTP Basic Auth cannot carry it)")
		default:
			if j, dup := names[u.Username]; dup {
				bad(key+".username", u.Username, "is already used by auth.users[%d]", j)
			} else {
				names[u.Username] = i
			}
		}
		if u.Password == "" {
			bad(key+".password", "", "must not be empty")
		} else if isBcryptLike(u.Password) {
			if _, err := bcrypt.Cost([]byte(u.Password)); err != nil {
				errs = append(errs, fmt.Errorf("config: %s.password = (redacted): looks like a bcrypt hash but is malformed: %v", key, err))
			}
		}
		if len(u.Roles) == 0 {
			bad(key+".roles", u.Roles, "must name at least one of %s", strings.Join(validRoles, ", "))
		}
		for j, r := range u.Roles {
			if !oneOf(r, validRoles) {
				bad(fmt.Sprintf("%s.roles[%d]", key, j), r, "must be one of %s", strings.Join(validRoles, ", "))
			}
			if r == RoleMember || r == RoleAdmin {
				hasMember = true
			}
		}
	}
	if len(a.Users) > 0 && a.AuthenticateMemberAPI && !hasMember {
		bad("auth.authenticate-member-api", true, "needs at least one user in auth.users with role %s (or %s), or no member could heartbeat; add one, or set it false to leave heartbeats open", RoleMember, RoleAdmin)
	}

	for i, u := range a.Users {
		validGroupScopes(i, u.Groups, bad)
		for j, p := range u.Streams {
			if err := validStreamScope(p); err != nil {
				bad(fmt.Sprintf("auth.users[%d].streams[%d]", i, j), p, "%v", err)
			}
		}
	}
	if open, known := loopbackAddr(c.HTTP.Addr); len(a.Users) == 0 && !a.AllowUnauthenticated && known && !open {
		bad("http.addr", c.HTTP.Addr, "listens beyond loopback with no auth.users, so every route (admin included) would be open to the network; "+
			"configure auth.users and auth.token-secret, or set auth.allow-unauthenticated: true to run open on purpose")
	}

	// coordination
	co := c.Coordination
	positive("coordination.heartbeat-interval", co.HeartbeatInterval)
	if co.HeartbeatInterval > 0 && co.MemberLeaseTTL <= co.HeartbeatInterval {
		bad("coordination.member-lease-ttl", co.MemberLeaseTTL, "must be greater than coordination.heartbeat-interval (%s)", co.HeartbeatInterval)
	} else {
		positive("coordination.member-lease-ttl", co.MemberLeaseTTL)
	}
	positive("coordination.rebalance-timeout", co.RebalanceTimeout)
	positive("coordination.member-retention", co.MemberRetention)

	// store durability
	if n := c.Store.WaitReplicas; n < 0 || n > 16 {
		bad("store.wait-replicas", n, "must be between 0 and 16")
	}
	if c.Store.WaitTimeout <= 0 {
		bad("store.wait-timeout", c.Store.WaitTimeout, "must be positive")
	} else if c.Store.WaitReplicas > 0 && c.Redis.ReadTimeout > 0 && c.Store.WaitTimeout >= c.Redis.ReadTimeout {
		bad("store.wait-timeout", c.Store.WaitTimeout, "must be shorter than redis.read-timeout (%s): WAIT blocks the connection", c.Redis.ReadTimeout)
	}

	// groups
	if c.Groups.IdlePassivation < 0 {
		bad("groups.idle-passivation", c.Groups.IdlePassivation, "must not be negative (0 = never passivate)")
	}
	positive("groups.sweep-interval", c.Groups.SweepInterval)

	// defaults
	if n := c.Defaults.InitialShardCount; n < 1 || n > MaxInitialShards {
		bad("defaults.initial-shard-count", n, "must be between 1 and %d", MaxInitialShards)
	}

	// resharding
	rs := c.Resharding
	if rs.MaxShardCount < 1 || rs.MaxShardCount > MaxInitialShards {
		bad("resharding.max-shard-count", rs.MaxShardCount, "must be between 1 and %d", MaxInitialShards)
	} else if n := c.Defaults.InitialShardCount; n >= 1 && n <= MaxInitialShards && n > rs.MaxShardCount {
		bad("defaults.initial-shard-count", c.Defaults.InitialShardCount, "must not exceed resharding.max-shard-count (%d)", rs.MaxShardCount)
	}
	positive("resharding.routing-grace", rs.RoutingGrace)
	positive("resharding.poll-interval", rs.PollInterval)
	if rs.RetiredRetention < time.Second {
		bad("resharding.retired-retention", rs.RetiredRetention, "must be at least 1s")
	}
	if rs.History < 1 || rs.History > 1000 {
		bad("resharding.history", rs.History, "must be between 1 and 1000")
	}
	if rs.DriverLease < time.Second {
		bad("resharding.driver-lease", rs.DriverLease, "must be at least 1s")
	} else if rs.PollInterval > 0 && rs.DriverLease < 2*rs.PollInterval {
		bad("resharding.driver-lease", rs.DriverLease, "must be at least twice resharding.poll-interval (%s): the driver renews it once per round", rs.PollInterval)
	}

	// groups, limits
	if !oneOf(c.Groups.Creation, validCreation) {
		bad("groups.creation", c.Groups.Creation, "must be one of %s", strings.Join(validCreation, ", "))
	}
	// metrics, shutdown, audit
	if a := c.Metrics.Addr; a != "" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			bad("metrics.addr", a, "must be host:port (or empty for no extra listener)")
		} else if a == c.HTTP.Addr && !strings.HasSuffix(a, ":0") {
			bad("metrics.addr", a, "must differ from http.addr")
		}
	}
	if c.Metrics.SampleInterval < 100*time.Millisecond || c.Metrics.SampleInterval > time.Hour {
		bad("metrics.sample-interval", c.Metrics.SampleInterval, "must be between 100ms and 1h")
	}
	if c.Shutdown.Timeout < time.Second || c.Shutdown.Timeout > 10*time.Minute {
		bad("shutdown.timeout", c.Shutdown.Timeout, "must be between 1s and 10m")
	}
	if c.Shutdown.DrainDelay < 0 || c.Shutdown.DrainDelay >= c.Shutdown.Timeout {
		bad("shutdown.drain-delay", c.Shutdown.DrainDelay, "must be at least 0 and shorter than shutdown.timeout (%s)", c.Shutdown.Timeout)
	}
	c.Audit.validateRefusals(bad)
	if n := c.Audit.RedisMaxLen; n < 1 || n > 100_000_000 {
		bad("audit.redis-maxlen", n, "must be between 1 and 100000000")
	}
	if s := c.Audit.RedisStream; s != "" && strings.TrimSpace(s) != s {
		bad("audit.redis-stream", s, "must not start or end with spaces")
	}

	l := c.Limits
	if l.GroupsPerStream < 1 || l.GroupsPerStream > MaxLimit {
		bad("limits.groups-per-stream", l.GroupsPerStream, "must be between 1 and %d", MaxLimit)
	}
	if l.MembersPerGroup < 1 || l.MembersPerGroup > MaxLimit {
		bad("limits.members-per-group", l.MembersPerGroup, "must be between 1 and %d", MaxLimit)
	}
	if !(l.JoinsPerSecond > 0) || l.JoinsPerSecond > MaxLimit {
		bad("limits.joins-per-second", l.JoinsPerSecond, "must be greater than 0 and at most %d (joins per second per group)", MaxLimit)
	}
	if l.JoinBurst < 1 || l.JoinBurst > MaxLimit {
		bad("limits.join-burst", l.JoinBurst, "must be between 1 and %d", MaxLimit)
	}
	if l.RetainedMembersPerGroup < 0 || l.RetainedMembersPerGroup > MaxLimit {
		bad("limits.retained-members-per-group", l.RetainedMembersPerGroup, "must be between 0 and %d", MaxLimit)
	}

	if l.BrowseMaxCount < 1 || l.BrowseMaxCount > MaxBrowseCount {
		bad("limits.browse-max-count", l.BrowseMaxCount, "must be between 1 and %d (messages per page)", MaxBrowseCount)
	}

	// cluster
	c.Cluster.validate(bad)

	// log
	if !oneOf(c.Log.Level, validLevels) {
		bad("log.level", c.Log.Level, "must be one of %s", strings.Join(validLevels, ", "))
	}
	if !oneOf(c.Log.Format, validFormats) {
		bad("log.format", c.Log.Format, "must be one of %s", strings.Join(validFormats, ", "))
	}
	return errors.Join(errs...)
}

// Warnings returns advice about a valid but risky configuration, to be
// logged at start (the embedded-Redis notice is one of them).
func (c Config) Warnings() []string {
	var w []string
	co := c.Coordination
	if co.HeartbeatInterval > 0 && co.MemberLeaseTTL < 3*co.HeartbeatInterval {
		w = append(w, fmt.Sprintf("coordination.member-lease-ttl = %s is less than 3 x coordination.heartbeat-interval (%s): one late heartbeat can expire a healthy member", co.MemberLeaseTTL, co.HeartbeatInterval))
	}
	if co.HeartbeatInterval > 0 && co.RebalanceTimeout < 2*co.HeartbeatInterval {
		w = append(w, fmt.Sprintf("coordination.rebalance-timeout = %s is less than 2 x coordination.heartbeat-interval (%s): members learn of revocations on their next heartbeat and may be fenced before they can release", co.RebalanceTimeout, co.HeartbeatInterval))
	}
	if c.Embedded() {
		w = append(w, "redis.addrs is empty: using an EMBEDDED IN-PROCESS REDIS, for development only; all state is lost when the process exits")
	}
	return w
}

// checkHostPort checks "host:port". allowEmptyHost admits ":8080" (all
// interfaces); allowZeroPort admits port 0 (pick a free port).
func checkHostPort(s string, allowEmptyHost, allowZeroPort bool) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return errors.New("must be host:port")
	}
	if host == "" && !allowEmptyHost {
		return errors.New("must be host:port with a non-empty host")
	}
	if strings.ContainsAny(host, " \t/") {
		return errors.New("must be host:port with a valid host")
	}
	p, err := strconv.Atoi(port)
	lowest := 1
	if allowZeroPort {
		lowest = 0
	}
	if err != nil || p < lowest || p > 65535 {
		return fmt.Errorf("port must be a number between %d and 65535", lowest)
	}
	return nil
}

// checkName checks a non-empty identifier made of [A-Za-z0-9._-].
func checkName(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	for _, r := range s {
		if !isIDChar(r) {
			return fmt.Errorf("contains %q; only letters, digits, '.', '_' and '-' are allowed", r)
		}
	}
	return nil
}

func isBcryptLike(p string) bool {
	return strings.HasPrefix(p, "$2a$") || strings.HasPrefix(p, "$2b$") || strings.HasPrefix(p, "$2y$")
}

func oneOf(s string, set []string) bool { return slices.Contains(set, s) }

// show renders a value for an error message: strings quoted, durations and
// sizes in their usual form, lists in brackets.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// loopbackAddr reports whether a host:port listen address accepts loopback
// connections only ("127.0.0.1:8080", "[::1]:0", "localhost:80"). An empty
// host, 0.0.0.0, any other address or name listens beyond loopback. known is
// false when addr is not host:port (reported by its own check).
func loopbackAddr(addr string) (loopback, known bool) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, false
	}
	if strings.EqualFold(host, "localhost") {
		return true, true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), true
}

// validStreamScope checks one auth.users[].streams entry: a stream prefix,
// or a prefix followed by "*" (every stream prefix that starts with it).
func validStreamScope(p string) error {
	name := strings.TrimSuffix(p, "*")
	if strings.TrimSpace(name) == "" {
		if p == "*" {
			return nil
		}
		return errors.New("must be a stream prefix, a prefix followed by '*', or '*'")
	}
	if strings.ContainsAny(name, "{}*") {
		return errors.New("may not contain '{', '}' or '*' except one trailing '*'")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return errors.New("may not contain control characters")
		}
	}
	return nil
}
