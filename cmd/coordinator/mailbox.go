package main

import (
	"context"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/mailbox"
)

// startMailbox starts the Redis mailbox reader when mailbox.enabled is set
// (nil otherwise). It runs after the Service started and is stopped before
// the Service stops.
func startMailbox(ctx context.Context, cfg config.Config, client redis.UniversalClient, members coordinator.Members, reg *metrics.Metrics, logger *slog.Logger) (*mailbox.Reader, error) {
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
		Metrics:     metrics.NewMailbox(reg),
	})
	if err != nil {
		return nil, err
	}
	if err := r.Start(ctx); err != nil {
		return nil, err
	}
	return r, nil
}
