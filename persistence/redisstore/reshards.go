package redisstore

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/redis/go-redis/v9"
)

// reshardingKey is the set of streams with a migration in progress.
func (k keys) resharding() string { return k.prefix + ":reshard:active" }

// driver is the driver lease of one stream's migration.
func (k keys) driver(streamPrefix string) string {
	return k.prefix + ":reshard:driver:" + escape(streamPrefix)
}

// acquireDriverScript: KEYS lease; ARGV owner, ttl ms. Takes a free lease,
// renews one the owner holds, refuses otherwise.
var acquireDriverScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`)

var releaseDriverScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// MarkResharding implements persistence.Reshards.
func (s *Store) MarkResharding(ctx context.Context, streamPrefix string) error {
	op := "mark resharding " + streamPrefix
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	return mapErr(op, s.c.SAdd(ctx, s.k.resharding(), streamPrefix).Err())
}

// UnmarkResharding implements persistence.Reshards.
func (s *Store) UnmarkResharding(ctx context.Context, streamPrefix string) error {
	op := "unmark resharding " + streamPrefix
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	return mapErr(op, s.c.SRem(ctx, s.k.resharding(), streamPrefix).Err())
}

// ReshardingStreams implements persistence.Reshards.
func (s *Store) ReshardingStreams(ctx context.Context) ([]string, error) {
	op := "list resharding streams"
	if err := checkCtx(ctx, op); err != nil {
		return nil, err
	}
	out, err := s.c.SMembers(ctx, s.k.resharding()).Result()
	if err != nil {
		return nil, mapErr(op, err)
	}
	sort.Strings(out)
	return out, nil
}

// AcquireDriver implements persistence.Reshards.
func (s *Store) AcquireDriver(ctx context.Context, streamPrefix, owner string, ttl time.Duration) (bool, error) {
	op := fmt.Sprintf("acquire the resharding driver lease of %s", streamPrefix)
	if err := checkCtx(ctx, op); err != nil {
		return false, err
	}
	if ttl < time.Millisecond {
		return false, fmt.Errorf("%s: ttl %v below 1ms", op, ttl)
	}
	n, err := acquireDriverScript.Run(ctx, s.c, []string{s.k.driver(streamPrefix)}, owner, ttl.Milliseconds()).Int64()
	if err != nil {
		return false, mapErr(op, err)
	}
	return n == 1, nil
}

// ReleaseDriver implements persistence.Reshards.
func (s *Store) ReleaseDriver(ctx context.Context, streamPrefix, owner string) error {
	op := fmt.Sprintf("release the resharding driver lease of %s", streamPrefix)
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	return mapErr(op, releaseDriverScript.Run(ctx, s.c, []string{s.k.driver(streamPrefix)}, owner).Err())
}
