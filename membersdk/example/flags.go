package main

import (
	"crypto/tls"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk"
)

// listFlag is a repeatable flag that also takes comma-separated lists:
// -redis a:6379 -redis b:6379 or -redis a:6379,b:6379.
type listFlag struct {
	vals []string
	set  bool
}

func (l *listFlag) String() string { return strings.Join(l.vals, ",") }

func (l *listFlag) Set(v string) error {
	if !l.set { // the first -redis replaces the default
		l.vals, l.set = nil, true
	}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			l.vals = append(l.vals, s)
		}
	}
	return nil
}

// newRedis connects to one Redis (one address) or to a Redis Cluster (several
// addresses, or one seed with -redis-cluster). On Redis Cluster a plain client
// would answer MOVED for every key in another node's slots.
// tc (nil: plaintext) is the TLS configuration of membersdk.RedisTLS.
func newRedis(addrs []string, cluster bool, tc *tls.Config) redis.UniversalClient {
	if cluster {
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, TLSConfig: tc})
	}
	return redis.NewUniversalClient(&redis.UniversalOptions{Addrs: addrs, TLSConfig: tc})
}

// mailboxPrincipal is principal with the Redis mailbox transport, else ""
// (the option is for the mailbox only).
func mailboxPrincipal(transport, principal string) string {
	if transport == membersdk.TransportRedis {
		return principal
	}
	return ""
}
