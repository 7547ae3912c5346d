package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/persistence"
)

// runDurable runs a state-changing script like run and, with
// Options.WaitReplicas > 0, sends WAIT on the same connection (one pipeline)
// so that the write is acknowledged by that many replicas before the caller
// is told it succeeded. A failover to a replica then cannot lose a write the
// coordinator acted on. A write that reached fewer replicas within
// WaitTimeout is reported as persistence.ErrUnavailable: it is applied on the
// primary but not yet safe, so the shell treats its outcome as unknown (tells
// nobody, reloads before answering again).
func (s *Store) runDurable(ctx context.Context, op string, sc *redis.Script, keys []string, args ...any) (string, []any, error) {
	if s.waitReplicas <= 0 {
		return s.run(ctx, op, sc, keys, args...)
	}
	c, err := s.nodeOf(ctx, keys[0])
	if err != nil {
		return "", nil, mapErr(op, err)
	}
	var eval *redis.Cmd
	var wait *redis.Cmd
	_, err = c.Pipelined(ctx, func(p redis.Pipeliner) error {
		eval = sc.Eval(ctx, p, keys, args...)
		wait = p.Do(ctx, "WAIT", s.waitReplicas, s.waitTimeout.Milliseconds())
		return nil
	})
	if err != nil && eval.Err() != nil {
		return "", nil, mapErr(op, eval.Err())
	}
	if err != nil {
		return "", nil, mapErr(op+": wait for replicas", err)
	}
	status, rest, err := splitReply(op, eval.Val())
	if err != nil || status != "OK" {
		return status, rest, err // nothing was written: no need to wait
	}
	if n, _ := wait.Int64(); n < int64(s.waitReplicas) {
		return "", nil, fmt.Errorf("%s: written on the primary but acknowledged by %d of %d replica(s) within %s (store.wait-replicas): %w",
			op, n, s.waitReplicas, s.waitTimeout, persistence.ErrUnavailable)
	}
	return status, rest, nil
}

// nodeOf is the client that reaches the primary holding key: the store's
// client, or on Redis Cluster the connection to that key's primary. WAIT
// names no key, so a cluster client would send it to any node: it must go,
// in one pipeline with the write, to the node the write went to.
func (s *Store) nodeOf(ctx context.Context, key string) (redis.Cmdable, error) {
	if cc, ok := s.c.(*redis.ClusterClient); ok {
		return cc.MasterForKey(ctx, key)
	}
	return s.c, nil
}
