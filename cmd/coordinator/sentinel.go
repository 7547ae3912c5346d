package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/config"
)

// askSentinels asks each of redis.sentinel.addrs where the primary named
// redis.sentinel.master-name is, and returns the first answer. A start with a
// Sentinel setting that cannot work is refused with the key to fix: no
// Sentinel answers, none knows the name, or they ask for a password the
// configuration does not give (or refuse the one it gives).
func askSentinels(ctx context.Context, r config.Redis, tc *tls.Config) (string, error) {
	s := r.Sentinel
	var unknown, authRefused, notSentinel []string
	var unreachable []string
	for _, a := range s.Addrs {
		sc := redis.NewSentinelClient(&redis.Options{Addr: a, Username: s.Username, Password: s.Password, TLSConfig: tc,
			DialTimeout: r.DialTimeout, ReadTimeout: r.ReadTimeout, WriteTimeout: r.WriteTimeout, MaxRetries: -1})
		addr, err := sc.GetMasterAddrByName(ctx, s.MasterName).Result()
		_ = sc.Close()
		switch {
		case err == nil && len(addr) == 2:
			return addr[0] + ":" + addr[1], nil
		case errors.Is(err, redis.Nil):
			unknown = append(unknown, a)
		case err != nil && isAuthError(err):
			authRefused = append(authRefused, fmt.Sprintf("%s (%v)", a, err))
		case err != nil && strings.Contains(err.Error(), "unknown command 'sentinel'"):
			notSentinel = append(notSentinel, a)
		case err != nil:
			unreachable = append(unreachable, fmt.Sprintf("%s (%v)", a, err))
		default:
			unreachable = append(unreachable, fmt.Sprintf("%s (answered %q)", a, addr))
		}
	}
	switch {
	case len(authRefused) > 0 && s.Password == "":
		return "", fmt.Errorf("config: redis.sentinel.password is not set, but the Sentinels ask for one: %s; set it (RSC_REDIS_SENTINEL_PASSWORD; redis.password is the primary's)",
			strings.Join(authRefused, "; "))
	case len(authRefused) > 0:
		return "", fmt.Errorf("config: redis.sentinel.username/redis.sentinel.password are refused by the Sentinels: %s; give the Sentinels' credentials (redis.password is the primary's)",
			strings.Join(authRefused, "; "))
	case len(notSentinel) > 0 && len(unknown) == 0:
		return "", fmt.Errorf("config: redis.sentinel.addrs: %s is a Redis server, not a Sentinel; list the Sentinels' addresses (redis-server --sentinel, port 26379 by default)",
			strings.Join(notSentinel, ", "))
	case len(unknown) > 0:
		return "", fmt.Errorf("config: redis.sentinel.master-name = %q: the Sentinels at %s monitor no primary of that name; use the name of their `sentinel monitor NAME ...` line (SENTINEL MASTERS lists them)",
			s.MasterName, strings.Join(unknown, ", "))
	}
	return "", fmt.Errorf("config: redis.sentinel.addrs: no Sentinel answers: %s; check the addresses and that the Sentinels run (redis-server --sentinel)",
		strings.Join(unreachable, "; "))
}

// isAuthError reports whether err is Redis refusing the connection's
// credentials, or asking for some.
func isAuthError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"NOAUTH", "WRONGPASS", "ERR invalid password", "ERR AUTH", "ERR Client sent AUTH", "NOPERM"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
