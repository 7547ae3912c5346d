package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/persistence"
)

// Options configure a Store.
type Options struct {
	// KeyPrefix prefixes every key (default "rsc"). It must not contain '{'
	// or '}'.
	KeyPrefix string
	// CloseClient makes Close close the client too (default: the caller owns it).
	CloseClient bool
	// Now is the clock used to fill in zero timestamps (default time.Now).
	Now func() time.Time
	// WaitReplicas > 0: every state-changing write waits (WAIT) until that
	// many replicas acknowledged it, else it fails as unavailable
	// (store.wait-replicas). WaitTimeout bounds the wait (default 200ms).
	WaitReplicas int
	WaitTimeout  time.Duration
}

// Store is the Redis persistence.Store. Safe for concurrent use.
type Store struct {
	c           redis.UniversalClient
	k           keys
	now         func() time.Time
	closeClient bool

	waitReplicas int
	waitTimeout  time.Duration
}

var _ persistence.Store = (*Store)(nil)

// New returns a store over c. It sends nothing to Redis; call Ping to check
// the connection.
func New(c redis.UniversalClient, opts Options) (*Store, error) {
	k, err := newKeys(opts.KeyPrefix)
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	if opts.WaitReplicas < 0 {
		return nil, fmt.Errorf("redisstore: WaitReplicas %d must not be negative", opts.WaitReplicas)
	}
	if opts.WaitTimeout <= 0 {
		opts.WaitTimeout = 200 * time.Millisecond
	}
	return &Store{c: c, k: k, now: now, closeClient: opts.CloseClient,
		waitReplicas: opts.WaitReplicas, waitTimeout: opts.WaitTimeout}, nil
}

// KeyPrefix is the prefix of every key the store writes.
func (s *Store) KeyPrefix() string { return s.k.prefix }

// Ping implements persistence.Store.
func (s *Store) Ping(ctx context.Context) error {
	if err := checkCtx(ctx, "ping"); err != nil {
		return err
	}
	return mapErr("ping", s.c.Ping(ctx).Err())
}

// Close implements persistence.Store. It closes the client only with
// Options.CloseClient.
func (s *Store) Close() error {
	if s.closeClient {
		return s.c.Close()
	}
	return nil
}

// run executes a script and splits its {status, ...} answer.
func (s *Store) run(ctx context.Context, op string, sc *redis.Script, keys []string, args ...any) (string, []any, error) {
	res, err := sc.Run(ctx, s.c, keys, args...).Result()
	if err != nil {
		return "", nil, mapErr(op, err)
	}
	return splitReply(op, res)
}

// splitReply splits a script's {status, ...} answer.
func splitReply(op string, res any) (string, []any, error) {
	arr, ok := res.([]any)
	if !ok || len(arr) == 0 {
		return "", nil, fmt.Errorf("%s: unexpected script reply %#v", op, res)
	}
	status, ok := arr[0].(string)
	if !ok {
		return "", nil, fmt.Errorf("%s: unexpected script status %#v", op, arr[0])
	}
	return status, arr[1:], nil
}

func asInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case string:
		var n int64
		_, err := fmt.Sscan(x, &n)
		return n, err
	}
	return 0, fmt.Errorf("not an integer: %#v", v)
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}
