package redisstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/persistence"
)

var _ persistence.TokenGenerations = (*Store)(nil)

// tokenGenerations is the hash user → token generation.
func (k keys) tokenGenerations() string { return k.prefix + ":auth:token-generations" }

// TokenGenerations implements persistence.TokenGenerations (HGETALL).
func (s *Store) TokenGenerations(ctx context.Context) (map[string]int64, error) {
	const op = "token generations"
	if err := checkCtx(ctx, op); err != nil {
		return nil, err
	}
	raw, err := s.c.HGetAll(ctx, s.k.tokenGenerations()).Result()
	if err != nil {
		return nil, mapErr(op, err)
	}
	out := make(map[string]int64, len(raw))
	for user, v := range raw {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: user %q has generation %q, not an integer: %w", op, user, v, persistence.ErrUnsupportedFormat)
		}
		out[user] = n
	}
	return out, nil
}

// RevokeTokens implements persistence.TokenGenerations (HINCRBY, then WAIT
// with Options.WaitReplicas so that a failover cannot undo a revocation).
func (s *Store) RevokeTokens(ctx context.Context, user string) (int64, error) {
	const op = "revoke tokens"
	if err := checkCtx(ctx, op); err != nil {
		return 0, err
	}
	c, err := s.nodeOf(ctx, s.k.tokenGenerations())
	if err != nil {
		return 0, mapErr(op, err)
	}
	var incr *redis.IntCmd
	var wait *redis.Cmd
	_, err = c.Pipelined(ctx, func(p redis.Pipeliner) error {
		incr = p.HIncrBy(ctx, s.k.tokenGenerations(), user, 1)
		if s.waitReplicas > 0 {
			wait = p.Do(ctx, "WAIT", s.waitReplicas, s.waitTimeout.Milliseconds())
		}
		return nil
	})
	if err != nil {
		return 0, mapErr(op, err)
	}
	if wait != nil {
		if n, err := wait.Int64(); err != nil || n < int64(s.waitReplicas) {
			return 0, fmt.Errorf("%s: %d of %d replicas acknowledged: %w", op, n, s.waitReplicas, persistence.ErrUnavailable)
		}
	}
	return incr.Val(), nil
}
