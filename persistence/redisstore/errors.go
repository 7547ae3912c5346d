package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/persistence"
)

// transientPrefixes are Redis error replies that mean "not now" rather than
// "wrong request".
var transientPrefixes = []string{"LOADING", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "READONLY", "BUSY", "NOREPLICAS", "MOVED", "ASK", "ERR max number of clients"}

// mapErr wraps a client error for op: context errors and anything that is not
// a Redis error reply (network, timeout, closed client, pool timeout) become
// persistence.ErrUnavailable; transient replies too; other replies are
// returned as they are (a bug or a misconfigured server), with context.
func mapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w: %w", op, persistence.ErrUnavailable, err)
	}
	if strings.Contains(err.Error(), "all sentinels specified in configuration are unreachable") {
		// go-redis' failover client found no Sentinel to ask (it has no sentinel error value).
		return fmt.Errorf("%s: %w: %w: %w", op, persistence.ErrNoPrimary, persistence.ErrUnavailable, err)
	}
	var rerr redis.Error
	if errors.As(err, &rerr) && !errors.Is(err, redis.ErrClosed) {
		msg := rerr.Error()
		if strings.HasPrefix(msg, "READONLY") || strings.HasPrefix(msg, "NOREPLICAS") {
			return fmt.Errorf("%s: %w: %w: %w", op, persistence.ErrReadOnly, persistence.ErrUnavailable, err)
		}
		for _, p := range transientPrefixes {
			if strings.HasPrefix(msg, p) {
				return fmt.Errorf("%s: %w: %w", op, persistence.ErrUnavailable, err)
			}
		}
		return fmt.Errorf("%s: redis: %w", op, err)
	}
	return fmt.Errorf("%s: %w: %w", op, persistence.ErrUnavailable, err)
}

// checkCtx fails fast (before anything is sent) on a done context.
func checkCtx(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w: %w", op, persistence.ErrUnavailable, err)
	}
	return nil
}

func formatErr(op, got string) error {
	return fmt.Errorf("%s: stored record has format %q, this build reads format %s (written by a newer release?): %w",
		op, got, format, persistence.ErrUnsupportedFormat)
}
