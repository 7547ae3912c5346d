package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/config"
)

// openRedis connects to the configured Redis, or starts the embedded
// in-process Redis when no address is configured (development only: its data
// lives in this process and is lost when it exits).
func openRedis(cfg config.Config, logger *slog.Logger) (redis.UniversalClient, func(), error) {
	r := cfg.Redis
	addrs := r.Addrs
	var embedded *miniredis.Miniredis
	if cfg.Embedded() {
		embedded = miniredis.NewMiniRedis()
		if err := embedded.StartAddr("127.0.0.1:0"); err != nil {
			return nil, nil, fmt.Errorf("start embedded Redis: %w", err)
		}
		addrs = []string{embedded.Addr()}
		logger.Warn("!!! NO REDIS CONFIGURED: using an EMBEDDED in-process Redis at " + embedded.Addr() +
			". Everything is lost when this process exits. For development only: set redis.addrs (RSC_REDIS_ADDRS) in production.")
	}
	opts := &redis.UniversalOptions{
		Addrs: addrs, Username: r.Username, Password: r.Password, DB: r.DB,
		DialTimeout: r.DialTimeout, ReadTimeout: r.ReadTimeout, WriteTimeout: r.WriteTimeout,
		// Fail fast when Redis is down: members are told RETRY and keep
		// their shards within their leases; slow retries would only hold the
		// group actor's mailbox.
		MaxRetries: 1, DialerRetries: 1, DialerRetryTimeout: 50 * time.Millisecond,
	}
	if r.TLS {
		opts.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	redis.SetLogger(redisLogger{logger})
	client := redis.NewUniversalClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		// Not fatal: the coordinator answers RETRY until Redis is back.
		logger.Warn("Redis does not answer yet; members will be told to retry until it does",
			slog.Any("addrs", addrs), slog.Any("err", err))
	}
	closeAll := func() {
		_ = client.Close()
		if embedded != nil {
			embedded.Close()
		}
	}
	return client, closeAll, nil
}

// redisLogger routes go-redis' internal messages (dial failures) to slog at
// debug level: the coordinator reports Redis outages itself (health, RETRY).
type redisLogger struct{ l *slog.Logger }

func (r redisLogger) Printf(_ context.Context, format string, v ...any) {
	r.l.Debug(fmt.Sprintf(format, v...), slog.String("component", "go-redis"))
}
