package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/mailbox"
)

// startMailbox starts the Redis mailbox reader when mailbox.enabled is set
// (nil otherwise). It runs after the Service started and is stopped before
// the Service stops.
func startMailbox(ctx context.Context, cfg config.Config, client redis.UniversalClient, members coordinator.Members, mm *metrics.Mailbox, logger *slog.Logger) (*mailbox.Reader, error) {
	if !cfg.Mailbox.Enabled {
		return nil, nil
	}
	principals := cfg.Mailbox.Principals
	if len(principals) == 0 {
		principals = mailbox.DefaultPrincipals(cfg.Auth)
	}
	r, err := mailbox.New(client, members, mailbox.Options{
		KeyPrefix:   cfg.Store.KeyPrefix,
		NodeID:      cfg.Cluster.NodeID,
		Principals:  principals,
		Auth:        cfg.Auth,
		BodyLimit:   int(cfg.HTTP.BodyLimit),
		MaxRequests: cfg.Mailbox.MaxRequests,
		ReplyTTL:    cfg.Mailbox.ReplyTTL,
		Block:       cfg.Mailbox.Block,
		Batch:       cfg.Mailbox.Batch,
		Logger:      logger.With(slog.String("transport", "mailbox")),
		Metrics:     mm,
	})
	if err != nil {
		return nil, err
	}
	if err := r.Start(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// mailboxMetrics registers the mailbox's metrics once (nil when mailbox.enabled is off): the
// reader and the nudger share them.
func mailboxMetrics(cfg config.Config, reg *metrics.Metrics) *metrics.Mailbox {
	if !cfg.Mailbox.Enabled {
		return nil
	}
	return metrics.NewMailbox(reg)
}

// startNudger starts the pusher of nudges to mailbox members (docs/PROTOCOL.md, "Nudges") when
// mailbox.enabled is set; the group actors call it (host.Options.Nudger). The returned stop is
// called after the host stopped. nil Nudger (and a no-op stop) when the mailbox is off.
func startNudger(cfg config.Config, client redis.UniversalClient, mm *metrics.Mailbox, logger *slog.Logger) (groupdeps.Nudger, func()) {
	if !cfg.Mailbox.Enabled {
		return nil, func() {}
	}
	o := mailbox.NudgerOptions{
		KeyPrefix: cfg.Store.KeyPrefix,
		ReplyTTL:  max(cfg.Mailbox.ReplyTTL, time.Millisecond).Milliseconds(),
		Logger:    logger.With(slog.String("transport", "mailbox")),
	}
	if mm != nil {
		o.Metrics = mm
	}
	n := mailbox.NewNudger(client, o)
	return n, n.Stop
}
