package membersdk

import (
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrRedisOptions marks RedisOptions that cannot make a client.
var ErrRedisOptions = errors.New("membersdk: Redis options")

// RedisOptions is how a member, a producer or the example member reaches
// Redis: one address, the seeds of a Redis Cluster, or a primary found
// through Redis Sentinel — each with the TLS settings of RedisTLS. They are
// the coordinator's redis.* settings under the same names
// (docs/OPERATIONS.md), so one deployment describes its Redis once.
//
// With Sentinel (MasterName and SentinelAddrs) the client asks the
// Sentinels where the primary is and follows every failover
// (+switch-master) without a restart; a connection to a primary that became
// a replica is closed at its first READONLY reply.
type RedisOptions struct {
	// Addrs is one address, or Redis Cluster seeds (several addresses, or
	// one with Cluster). Empty with Sentinel.
	Addrs []string
	// Cluster makes a single address a Redis Cluster seed.
	Cluster bool
	// Username and Password are Redis' ACL user (of the primary with
	// Sentinel); DB the logical database (not with Redis Cluster).
	Username, Password string
	DB                 int

	// MasterName is the name the Sentinels monitor the primary under
	// (sentinel monitor NAME ...); with SentinelAddrs, all of them.
	MasterName    string
	SentinelAddrs []string
	// SentinelUsername and SentinelPassword are the Sentinels' own
	// credentials, if they require any (Password is the primary's).
	SentinelUsername, SentinelPassword string

	// TLS, when set, connects over TLS (to the Sentinels too).
	TLS *RedisTLS
	// DialTimeout, ReadTimeout, WriteTimeout: go-redis' defaults when zero.
	DialTimeout, ReadTimeout, WriteTimeout time.Duration
}

// Client returns the client of o: a failover client with Sentinel, a
// cluster client for Redis Cluster, a plain client otherwise. An error
// names the field to fix.
func (o RedisOptions) Client() (redis.UniversalClient, error) {
	sentinel := o.MasterName != "" || len(o.SentinelAddrs) > 0
	switch {
	case sentinel && o.MasterName == "":
		return nil, fmt.Errorf("%w: RedisOptions.SentinelAddrs needs MasterName, the name the Sentinels monitor the primary under", ErrRedisOptions)
	case sentinel && len(o.SentinelAddrs) == 0:
		return nil, fmt.Errorf("%w: RedisOptions.MasterName needs SentinelAddrs, the Sentinels' host:port", ErrRedisOptions)
	case sentinel && len(o.Addrs) > 0:
		return nil, fmt.Errorf("%w: RedisOptions.Addrs is set together with Sentinel: the Sentinels say where the primary is; leave Addrs empty", ErrRedisOptions)
	case sentinel && o.Cluster:
		return nil, fmt.Errorf("%w: RedisOptions.Cluster is set together with Sentinel: Redis Cluster fails over by itself; use one or the other", ErrRedisOptions)
	case !sentinel && len(o.Addrs) == 0:
		return nil, fmt.Errorf("%w: RedisOptions.Addrs is empty: give Redis' host:port, Redis Cluster seeds, or MasterName and SentinelAddrs", ErrRedisOptions)
	case !sentinel && (o.SentinelUsername != "" || o.SentinelPassword != ""):
		return nil, fmt.Errorf("%w: RedisOptions.SentinelUsername/SentinelPassword are set without MasterName and SentinelAddrs", ErrRedisOptions)
	}
	var tc *tls.Config
	if o.TLS != nil {
		c, err := o.TLS.Config()
		if err != nil {
			return nil, err
		}
		tc = c
	}
	switch {
	case sentinel:
		return redis.NewFailoverClient(&redis.FailoverOptions{MasterName: o.MasterName, SentinelAddrs: o.SentinelAddrs,
			SentinelUsername: o.SentinelUsername, SentinelPassword: o.SentinelPassword,
			Username: o.Username, Password: o.Password, DB: o.DB, TLSConfig: tc,
			DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout}), nil
	case o.Cluster || len(o.Addrs) > 1:
		if o.DB != 0 {
			return nil, fmt.Errorf("%w: RedisOptions.DB = %d with Redis Cluster, which has only database 0", ErrRedisOptions, o.DB)
		}
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: o.Addrs, Username: o.Username, Password: o.Password, TLSConfig: tc,
			DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout}), nil
	}
	return redis.NewClient(&redis.Options{Addr: o.Addrs[0], Username: o.Username, Password: o.Password, DB: o.DB, TLSConfig: tc,
		DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout}), nil
}
