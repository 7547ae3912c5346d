package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/internal/tlsfiles"
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
	sentinel := r.Sentinel.Enabled()
	if sentinel {
		// A failover client: it asks the Sentinels for the primary and follows
		// +switch-master; addrs are the Sentinels'.
		opts.MasterName, opts.Addrs = r.Sentinel.MasterName, r.Sentinel.Addrs
		opts.SentinelUsername, opts.SentinelPassword = r.Sentinel.Username, r.Sentinel.Password
		addrs = nil // the primary's name comes from the Sentinels, not from an address here
	}
	var stopTLS func()
	if r.TLS {
		tc, stop, err := redisTLS(r, addrs, logger)
		if err != nil {
			if embedded != nil {
				embedded.Close()
			}
			return nil, nil, err
		}
		opts.TLSConfig, stopTLS = tc, stop
	}
	redis.SetLogger(redisLogger{l: logger, primaryKnown: new(atomic.Bool)})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if sentinel {
		primary, err := askSentinels(ctx, r, opts.TLSConfig)
		if err != nil {
			if stopTLS != nil {
				stopTLS()
			}
			return nil, nil, err
		}
		logger.Info("Redis through Sentinel: failovers are followed without a restart", slog.String("masterName", r.Sentinel.MasterName),
			slog.String("primary", primary), slog.Any("sentinels", r.Sentinel.Addrs))
	}
	client := redis.NewUniversalClient(opts)
	if err := client.Ping(ctx).Err(); err != nil {
		if why := tlsRefusal(r, addrs, err); why != "" {
			// Not fatal either (a rotated CA may fix it), but the keys to
			// check are named: this will not heal by itself.
			logger.Error(why, slog.Any("err", err))
		} else {
			// Not fatal: the coordinator answers RETRY until Redis is back.
			logger.Warn("Redis does not answer yet; members will be told to retry until it does",
				slog.Any("addrs", addrs), slog.Any("err", err))
		}
	}
	closeAll := func() {
		if stopTLS != nil {
			stopTLS()
		}
		_ = client.Close()
		if embedded != nil {
			embedded.Close()
		}
	}
	return client, closeAll, nil
}

// redisTLSReload is how often the redis.tls-* files are checked for a
// rotation.
const redisTLSReload = 10 * time.Second

// redisTLS is the TLS configuration of the Redis client (redis.tls-*): the
// CA to trust (the system's without redis.tls-ca-file), the client
// certificate to present, the name to verify (redis.tls-server-name, else
// the host of the first address). The files are re-read until stop is
// called; an error names the config key and the file.
func redisTLS(r config.Redis, addrs []string, logger *slog.Logger) (*tls.Config, func(), error) {
	src, err := tlsfiles.Load(tlsfiles.Files{
		CA: r.TLSCAFile, Cert: r.TLSCertFile, Key: r.TLSKeyFile,
		CAKey: "redis.tls-ca-file", CertKey: "redis.tls-cert-file", KeyKey: "redis.tls-key-file",
	}, logger.With(slog.String("tls", "redis")))
	if err != nil {
		return nil, nil, err
	}
	name := r.TLSServerName
	if name == "" && len(addrs) > 0 {
		if host, _, err := net.SplitHostPort(addrs[0]); err == nil {
			name = host
		}
	}
	tc := src.ClientConfig(name)
	if r.TLSMinVersion == "1.3" {
		tc.MinVersion = tls.VersionTLS13
	}
	ctx, cancel := context.WithCancel(context.Background())
	go src.Watch(ctx, redisTLSReload, nil)
	logger.Info("Redis over TLS", slog.String("serverName", name), slog.String("ca", r.TLSCAFile),
		slog.String("clientCert", r.TLSCertFile), slog.String("minVersion", r.TLSMinVersion))
	return tc, cancel, nil
}

// tlsRefusal says which redis.tls-* keys to check when err is a failed TLS
// verification of Redis' certificate ("" for any other error).
func tlsRefusal(r config.Redis, addrs []string, err error) string {
	var unknownCA x509.UnknownAuthorityError
	var badName x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	msg := err.Error()
	switch {
	case !r.TLS:
		return ""
	case errors.As(err, &badName) || strings.Contains(msg, "certificate is valid for") || strings.Contains(msg, "cannot validate certificate for"):
		name := r.TLSServerName
		if name == "" && len(addrs) > 0 {
			name, _, _ = net.SplitHostPort(addrs[0])
		}
		return fmt.Sprintf("Redis' certificate does not carry the name %q the coordinator verifies: set redis.tls-server-name to a name the certificate carries, or connect to one (redis.addrs)", name)
	case errors.As(err, &unknownCA) || strings.Contains(msg, "certificate signed by unknown authority"):
		ca := r.TLSCAFile
		if ca == "" {
			ca = "the system's CAs"
		}
		return fmt.Sprintf("Redis' certificate is not signed by a CA the coordinator trusts (redis.tls-ca-file: %s): give the CA that signed it", ca)
	case errors.As(err, &invalid) || errors.As(err, &verify) || strings.Contains(msg, "x509:"):
		return fmt.Sprintf("Redis' certificate was refused (redis.tls-ca-file %q, redis.tls-server-name %q): see the error", r.TLSCAFile, r.TLSServerName)
	}
	return ""
}

// redisLogger routes go-redis' internal messages (dial failures) to slog at
// debug level: the coordinator reports Redis outages itself (health, RETRY).
type redisLogger struct {
	l            *slog.Logger
	primaryKnown *atomic.Bool // the Sentinels named a primary before
}

func (r redisLogger) Printf(_ context.Context, format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if strings.HasPrefix(msg, "sentinel: new master") && r.primaryKnown.Swap(true) {
		// A failover the Sentinels announced (+switch-master): once per failover
		// (the first such line is the start's).
		r.l.Info("the Sentinels name a new Redis primary; reconnecting to it", slog.String("detail", msg), slog.String("component", "go-redis"))
		return
	}
	r.l.Debug(msg, slog.String("component", "go-redis"))
}
