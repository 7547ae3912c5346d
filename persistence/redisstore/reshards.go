package redisstore

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/redisstream/coordinator/persistence/redisstore/lua"
)

// reshardingKey is the set of streams with a migration in progress.
func (k keys) resharding() string { return k.prefix + ":reshard:active" }

// driver is the driver lease of one stream's migration.
func (k keys) driver(streamPrefix string) string {
	return k.prefix + ":reshard:driver:" + escape(streamPrefix)
}

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
	n, err := lua.AcquireDriver.Run(ctx, s.c, []string{s.k.driver(streamPrefix)}, owner, ttl.Milliseconds()).Int64()
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
	return mapErr(op, lua.ReleaseDriver.Run(ctx, s.c, []string{s.k.driver(streamPrefix)}, owner).Err())
}
