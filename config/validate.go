package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

var (
	validProviders = []string{ProviderSingle, ProviderAutomanaged, ProviderKubernetes, ProviderTest}
	validCreation  = []string{CreationImplicit, CreationExplicit}
)

// Validate checks every setting and returns all problems joined
// (errors.Join), one per line, each naming the key and the offending value:
//
//	config: coordination.member-lease-ttl = 2s: must be greater than coordination.heartbeat-interval (3s)
//
// The bounds of single keys are the validate tags of Config (bounds.go);
// what follows are the formats and the rules between keys, each skipped
// when a key it reads already failed. Secret values are never echoed.
// Advice that is not an error is returned by Warnings.
func (c Config) Validate() error {
	var errs []error
	bad := collect(&errs)
	failed := checkBounds("", c, bad)
	ok := func(keys ...string) bool { return !slices.ContainsFunc(keys, func(k string) bool { return failed[k] }) }

	if err := checkHostPort(c.HTTP.Addr, true, true); err != nil {
		bad("http.addr", c.HTTP.Addr, "%v", err)
	}
	for i, o := range c.HTTP.AllowedOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			bad(fmt.Sprintf("http.allowed-origins[%d]", i), o, "must be an origin scheme://host[:port] (http or https, no path), e.g. https://ops.example.com")
		}
	}
	if _, err := ParseMemoryLimit(c.Runtime.MemoryLimit); err != nil {
		bad("runtime.memory-limit", c.Runtime.MemoryLimit, "%v", err)
	}
	for i, a := range c.Redis.Addrs {
		key := fmt.Sprintf("redis.addrs[%d]", i)
		if err := checkHostPort(a, false, false); err != nil {
			bad(key, a, "%v", err)
		} else if slices.Contains(c.Redis.Addrs[:i], a) {
			bad(key, a, "is listed twice")
		}
	}
	if err := checkName(c.Store.KeyPrefix); err != nil {
		bad("store.key-prefix", c.Store.KeyPrefix, "%v", err)
	}

	c.Auth.check(bad, &errs)
	if open, known := loopbackAddr(c.HTTP.Addr); len(c.Auth.Users) == 0 && !c.Auth.AllowUnauthenticated && known && !open {
		bad("http.addr", c.HTTP.Addr, "listens beyond loopback with no auth.users, so every route (admin included) would be open to the network; "+
			"configure auth.users and auth.token-secret, or set auth.allow-unauthenticated: true to run open on purpose")
	}

	co := c.Coordination
	if ok("coordination.heartbeat-interval", "coordination.member-lease-ttl") && co.MemberLeaseTTL <= co.HeartbeatInterval {
		bad("coordination.member-lease-ttl", co.MemberLeaseTTL, "must be greater than coordination.heartbeat-interval (%s)", co.HeartbeatInterval)
	}
	if ok("store.wait-replicas", "store.wait-timeout", "redis.read-timeout") && c.Store.WaitReplicas > 0 && c.Store.WaitTimeout >= c.Redis.ReadTimeout {
		bad("store.wait-timeout", c.Store.WaitTimeout, "must be shorter than redis.read-timeout (%s): WAIT blocks the connection", c.Redis.ReadTimeout)
	}
	if !slices.Contains(validCreation, c.Groups.Creation) {
		bad("groups.creation", c.Groups.Creation, "must be one of %s", strings.Join(validCreation, ", "))
	}
	rs := c.Resharding
	if ok("defaults.initial-shard-count", "resharding.max-shard-count") && c.Defaults.InitialShardCount > rs.MaxShardCount {
		bad("defaults.initial-shard-count", c.Defaults.InitialShardCount, "must not exceed resharding.max-shard-count (%d)", rs.MaxShardCount)
	}
	if ok("resharding.driver-lease", "resharding.poll-interval") && rs.DriverLease < 2*rs.PollInterval {
		bad("resharding.driver-lease", rs.DriverLease, "must be at least twice resharding.poll-interval (%s): the driver renews it once per round", rs.PollInterval)
	}
	if a := c.Metrics.Addr; a != "" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			bad("metrics.addr", a, "must be host:port (or empty for no extra listener)")
		} else if a == c.HTTP.Addr && !strings.HasSuffix(a, ":0") {
			bad("metrics.addr", a, "must differ from http.addr")
		}
	}
	if ok("shutdown.drain-delay") && c.Shutdown.DrainDelay >= c.Shutdown.Timeout {
		bad("shutdown.drain-delay", c.Shutdown.DrainDelay, "must be shorter than shutdown.timeout (%s)", c.Shutdown.Timeout)
	}
	if s := c.Audit.RedisStream; s != "" && strings.TrimSpace(s) != s {
		bad("audit.redis-stream", s, "must not start or end with spaces")
	}
	c.checkMailbox(bad)
	c.Cluster.validate(bad, failed)
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
	return isLoopbackHost(host), true
}
