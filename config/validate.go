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

// Validate checks every setting and returns all problems joined, one per
// line: "config: KEY = VALUE: what is wrong" (secrets never echoed). Single
// keys are checked by their validate tags (bounds.go); what follows are the
// rules between keys, each skipped when a key it reads already failed.
func (c Config) Validate() error {
	var errs []error
	bad := collect(&errs)
	failed := checkBounds("", c, bad)
	ok := func(keys ...string) bool { return !slices.ContainsFunc(keys, func(k string) bool { return failed[k] }) }

	for i, a := range c.Redis.Addrs {
		if key := fmt.Sprintf("redis.addrs[%d]", i); !failed[key] && slices.Contains(c.Redis.Addrs[:i], a) {
			bad(key, a, "is listed twice")
		}
	}

	c.Redis.checkSentinel(bad, failed)

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
	rs := c.Resharding
	if ok("defaults.initial-shard-count", "resharding.max-shard-count") && c.Defaults.InitialShardCount > rs.MaxShardCount {
		bad("defaults.initial-shard-count", c.Defaults.InitialShardCount, "must not exceed resharding.max-shard-count (%d)", rs.MaxShardCount)
	}
	if ok("resharding.driver-lease", "resharding.poll-interval") && rs.DriverLease < 2*rs.PollInterval {
		bad("resharding.driver-lease", rs.DriverLease, "must be at least twice resharding.poll-interval (%s): the driver renews it once per round", rs.PollInterval)
	}
	if a := c.Metrics.Addr; ok("metrics.addr") && a != "" && a == c.HTTP.Addr && !strings.HasSuffix(a, ":0") {
		bad("metrics.addr", a, "must differ from http.addr")
	}
	if ok("shutdown.drain-delay") && c.Shutdown.DrainDelay >= c.Shutdown.Timeout {
		bad("shutdown.drain-delay", c.Shutdown.DrainDelay, "must be shorter than shutdown.timeout (%s)", c.Shutdown.Timeout)
	}
	if t := c.HTTP.TLS; t.Enabled() {
		if t.CertFile == "" && !failed["http.tls.cert-file"] {
			bad("http.tls.cert-file", "", "is required when http.tls.key-file or http.tls.client-ca-file is set: HTTPS needs the server certificate and its key")
		}
		if t.KeyFile == "" && !failed["http.tls.key-file"] {
			bad("http.tls.key-file", "", "is required when http.tls.cert-file is set: HTTPS needs the server certificate's private key")
		}
	}
	if r := c.Redis; !r.TLS {
		for _, k := range []struct{ key, val string }{{"redis.tls-ca-file", r.TLSCAFile}, {"redis.tls-cert-file", r.TLSCertFile},
			{"redis.tls-key-file", r.TLSKeyFile}, {"redis.tls-server-name", r.TLSServerName}} {
			if k.val != "" {
				bad(k.key, k.val, "is set but redis.tls is false: set redis.tls = true to connect to Redis over TLS, or remove it")
			}
		}
	} else if (r.TLSCertFile == "") != (r.TLSKeyFile == "") {
		bad("redis.tls-cert-file", r.TLSCertFile, "and redis.tls-key-file (%s) go together: a client certificate needs its key", show(r.TLSKeyFile))
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
// interfaces); lowest is 0 where port 0 (pick a free port) is allowed, else 1.
func checkHostPort(s string, allowEmptyHost bool, lowest int) error {
	host, port, err := net.SplitHostPort(s)
	switch p, perr := strconv.Atoi(port); {
	case err != nil:
		return errors.New("must be host:port")
	case host == "" && !allowEmptyHost:
		return errors.New("must be host:port with a non-empty host")
	case strings.ContainsAny(host, " \t/"):
		return errors.New("must be host:port with a valid host")
	case perr != nil || p < lowest || p > 65535:
		return fmt.Errorf("port must be a number between %d and 65535", lowest)
	}
	return nil
}

// checkOrigin checks an http.allowed-origins entry.
func checkOrigin(o string) error {
	u, err := url.Parse(o)
	return errorIf(err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil,
		"must be an origin scheme://host[:port] (http or https, no path), e.g. https://ops.example.com")
}

// checkName checks a non-empty identifier made of [A-Za-z0-9._-].
func checkName(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return idChar(r) < 0 }); i >= 0 {
		return fmt.Errorf("contains %q; only letters, digits, '.', '_' and '-' are allowed", []rune(s[i:])[0])
	}
	return nil
}

// loopbackAddr reports whether a host:port listen address accepts loopback
// connections only; known is false when addr is not host:port.
func loopbackAddr(addr string) (loopback, known bool) {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && isLoopbackHost(host), err == nil
}
