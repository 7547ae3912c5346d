package main

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// A Sentinel setting that cannot work stops the start with one line that
// names the key to fix; a good one finds the primary.
func TestAskSentinelsNamesTheKeyToFix(t *testing.T) {
	s := redistest.StartSentinels(t)
	ctx := context.Background()
	base := config.Default().Redis
	with := func(f func(*config.RedisSentinel)) config.Redis {
		r := base
		r.Sentinel = config.RedisSentinel{MasterName: redistest.SentinelMaster, Addrs: s.SentinelAddrs()}
		f(&r.Sentinel)
		return r
	}

	primary, err := askSentinels(ctx, with(func(*config.RedisSentinel) {}), nil)
	require.NoError(t, err)
	require.Equal(t, s.Primary(), primary)

	_, err = askSentinels(ctx, with(func(r *config.RedisSentinel) { r.MasterName = "other" }), nil)
	require.ErrorContains(t, err, `config: redis.sentinel.master-name = "other": the Sentinels at`)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := l.Addr().String()
	require.NoError(t, l.Close())
	r := with(func(r *config.RedisSentinel) { r.Addrs = []string{dead} })
	r.DialTimeout = 200 * time.Millisecond
	_, err = askSentinels(ctx, r, nil)
	require.ErrorContains(t, err, "config: redis.sentinel.addrs: no Sentinel answers: "+dead)

	// A Sentinel that requires a password (requirepass on the Sentinel).
	locked := s.ExtraSentinel("requirepass s3cret")
	r = with(func(r *config.RedisSentinel) { r.Addrs = []string{locked.Addr()} })
	_, err = askSentinels(ctx, r, nil)
	require.ErrorContains(t, err, "config: redis.sentinel.password is not set, but the Sentinels ask for one")
	r.Sentinel.Password = "wrong"
	_, err = askSentinels(ctx, r, nil)
	require.ErrorContains(t, err, "are refused by the Sentinels")

	// A Redis data node where a Sentinel was meant.
	r = with(func(r *config.RedisSentinel) { r.Addrs = []string{s.Primary()} })
	_, err = askSentinels(ctx, r, nil)
	require.ErrorContains(t, err, "is a Redis server, not a Sentinel")
}
