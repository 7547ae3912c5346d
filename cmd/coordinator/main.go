package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/host"
	"github.com/redisstream/coordinator/actors/service"
	"github.com/redisstream/coordinator/api"
	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/mailbox"
	"github.com/redisstream/coordinator/persistence/redisstore"
	"github.com/redisstream/coordinator/reshard/driver"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Environ()))
}

func run(args, environ []string) int {
	for _, a := range args {
		if a == "--version" || a == "-version" {
			fmt.Fprintln(os.Stdout, "coordinator", version)
			return 0
		}
	}
	cfg, envWarnings, err := config.LoadWithWarnings(args, environ)
	if errors.Is(err, config.ErrHelp) {
		fmt.Fprint(os.Stdout, config.Usage())
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	logger := newLogger(cfg.Log)
	logger.Info("starting coordinator", slog.String("version", version), slog.String("node", cfg.Cluster.NodeID),
		slog.Any("config", cfg.Redacted()))
	for _, w := range append(envWarnings, cfg.Warnings()...) {
		logger.Warn(w)
	}
	applyMemoryLimit(cfg, logger)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	client, closeRedis, err := openRedis(cfg, logger)
	if err != nil {
		logger.Error("cannot set up Redis", slog.Any("err", err))
		return 1
	}
	defer closeRedis()

	reg := metrics.New()
	store, err := redisstore.New(client, redisstore.Options{KeyPrefix: cfg.Store.KeyPrefix,
		WaitReplicas: cfg.Store.WaitReplicas, WaitTimeout: cfg.Store.WaitTimeout})
	if err != nil {
		logger.Error("cannot set up the store", slog.Any("err", err))
		return 1
	}
	provisioner := redisstore.NewProvisioner(client)
	evicted := make(chan string, 1)
	clusterOpts, err := clusterOptions(ctx, cfg, logger, reg, evicted)
	if err != nil {
		logger.Error("cannot set up the cluster", slog.Any("err", err))
		return 1
	}
	mbMetrics := mailboxMetrics(cfg, reg)
	nudger, stopNudger := startNudger(cfg, client, mbMetrics, logger)
	defer stopNudger() // after the host's deferred stop: the group actors nudge until then
	h := host.New(host.Options{
		Nudger:      nudger,
		Cluster:     clusterOpts,
		Store:       store,
		Provisioner: provisioner,
		Rules: model.Config{
			HeartbeatInterval:    cfg.Coordination.HeartbeatInterval,
			LeaseTTL:             cfg.Coordination.MemberLeaseTTL,
			RebalanceTimeout:     cfg.Coordination.RebalanceTimeout,
			Retention:            cfg.Coordination.MemberRetention,
			MaxMembers:           cfg.Limits.MembersPerGroup,
			MaxRetained:          cfg.Limits.RetainedMembersPerGroup,
			JoinRate:             cfg.Limits.JoinsPerSecond,
			JoinBurst:            cfg.Limits.JoinBurst,
			MaxMovesPerRound:     cfg.Assignment.MaxMovesPerRound,
			MaxMovesFraction:     cfg.Assignment.MaxMovesFraction,
			StaticSessionTimeout: cfg.Coordination.StaticSessionTimeout,
		},
		Limits: service.Limits{
			GroupsPerStream:       cfg.Limits.GroupsPerStream,
			ExplicitGroupCreation: cfg.Groups.Creation == config.CreationExplicit,
		},
		NodeID:            cfg.Cluster.NodeID,
		Logger:            logger,
		Metrics:           shellMetrics{reg},
		DefaultShardCount: cfg.Defaults.InitialShardCount,
		EmbeddedRedis:     cfg.Embedded(),
		ServerVersion:     version,
		GroupsActive:      reg.SetGroupsActive,
		IdlePassivation:   cfg.Groups.IdlePassivation,
		SweepInterval:     cfg.Groups.SweepInterval,
		Resharding: driver.Options{
			RoutingGrace: cfg.Resharding.RoutingGrace, PollInterval: cfg.Resharding.PollInterval,
			RetiredRetention: cfg.Resharding.RetiredRetention, History: cfg.Resharding.History,
			DriverLease: cfg.Resharding.DriverLease, HoldState: cfg.Failpoint.ReshardHold,
		},
		ReshardMetrics:  reg,
		TrustEmptyStore: cfg.Store.TrustEmptyStore,
		NodeMetrics:     reg,
		// The node registry (actors/node/registry.go) tells nodes that share the
		// store without forming one cluster apart. With no ClusterView the
		// node's cluster is itself only; the cluster provider sets one.
		ClusterName:     cfg.Cluster.Name,
		ClusterProvider: cfg.Cluster.Provider,
	})
	if err := h.Start(ctx); err != nil {
		logger.Error("cannot start the actor host", slog.Any("err", err))
		return 1
	}
	hostStopped := false
	defer func() {
		if !hostStopped {
			h.Stop()
		}
	}()

	mb, err := startMailbox(ctx, cfg, client, h.Service(), mbMetrics, logger)
	if err != nil {
		logger.Error("cannot start the Redis mailbox (mailbox.enabled)", slog.Any("err", err))
		return 1
	}
	// Runs before the host's deferred stop: the reader stops first.
	defer mb.Stop(context.Background())

	sampler := &groupSampler{hosts: h.Router(), redis: provisioner, m: reg, log: logger, interval: cfg.Metrics.SampleInterval}
	go sampler.run(ctx)

	var apiOpts []api.Option
	apiOpts = append(apiOpts, api.WithMetrics(reg), api.WithTokenGenerations(tokenGenerations{store}))
	var audit *redisAudit
	if cfg.Audit.RedisStream != "" {
		audit = newRedisAudit(client, cfg.Audit.RedisStream, cfg.Audit.RedisMaxLen, logger)
		apiOpts = append(apiOpts, api.WithAuditSink(audit))
	}
	srv := api.New(apiConfig(cfg, logger), h.Service(), apiOpts...)
	ln, err := net.Listen("tcp", cfg.HTTP.Addr)
	if err != nil {
		logger.Error("cannot listen", slog.String("addr", cfg.HTTP.Addr), slog.Any("err", err))
		return 1
	}
	scheme := "http"
	if cfg.HTTP.TLS.Enabled() {
		if ln, err = httpsListener(ctx, cfg.HTTP.TLS, ln, logger); err != nil {
			logger.Error("cannot serve HTTPS", slog.Any("err", err))
			return 1
		}
		scheme = "https"
	}
	// Tests and scripts read this line to find the port when addr ends in :0.
	fmt.Fprintf(os.Stdout, "coordinator listening on %s://%s\n", scheme, ln.Addr())
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	var metricsSrv *metricsListener
	if cfg.Metrics.Addr != "" {
		metricsSrv, err = listenMetrics(cfg.Metrics.Addr, reg, errc)
		if err != nil {
			logger.Error("cannot listen for metrics", slog.String("addr", cfg.Metrics.Addr), slog.Any("err", err))
			return 1
		}
		fmt.Fprintf(os.Stdout, "coordinator metrics on http://%s/metrics\n", metricsSrv.Addr())
	}

	code := 0
	select {
	case <-ctx.Done():
		logger.Info("shutting down: refusing new requests, finishing in-flight ones, then handing this node's groups over",
			slog.Duration("timeout", cfg.Shutdown.Timeout), slog.Duration("drainDelay", cfg.Shutdown.DrainDelay))
	case err := <-errc:
		logger.Error("HTTP server stopped", slog.Any("err", err))
		return 1
	case reason := <-evicted:
		logger.Error("exiting: this node was evicted from the cluster; its supervisor should start it again",
			slog.String("reason", reason), slog.Int("exitCode", exitEvicted))
		code = exitEvicted
	}
	stop() // a second SIGTERM/SIGINT now kills the process at once
	if !shutdown(logger, cfg.Shutdown, srv, metricsSrv, h, audit, mb) {
		return 1
	}
	hostStopped = true
	return code
}

// shutdown is the graceful shutdown, bounded by cfg.Timeout: drain (new
// requests 503 SHUTTING_DOWN, readiness 503) for cfg.DrainDelay, close the
// HTTP port and wait for in-flight requests, hand this node's groups over
// (h.Stop), flush the audit stream. It reports false when the bound ran out
// (the caller exits anyway; the groups are then recovered like after a crash).
func shutdown(logger *slog.Logger, cfg config.Shutdown, srv *api.Server, m *metricsListener, h *host.Host, audit *redisAudit, mb *mailbox.Reader) bool {
	start := time.Now()
	deadline := start.Add(cfg.Timeout)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if mb != nil {
		// First: no new mailbox requests while the node drains (members
		// time out and their next request is read by another node).
		mb.Stop(ctx)
	}
	srv.BeginDrain()
	if cfg.DrainDelay > 0 {
		select {
		case <-time.After(cfg.DrainDelay):
		case <-ctx.Done():
		}
	}
	if err := srv.Shutdown(ctx); err != nil {
		logger.Warn("HTTP shutdown: in-flight requests did not finish in time", slog.Any("err", err))
	}
	stopped := make(chan struct{})
	go func() { h.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-ctx.Done():
		logger.Error("shutdown.timeout ran out while handing groups over; exiting anyway (other nodes recover the groups as after a crash)",
			slog.Duration("timeout", cfg.Timeout))
		return false
	}
	if audit != nil {
		audit.Close(ctx)
	}
	if m != nil {
		_ = m.Shutdown(ctx)
	}
	logger.Info("shut down", slog.Duration("took", time.Since(start).Round(time.Millisecond)))
	return true
}

func apiConfig(cfg config.Config, logger *slog.Logger) api.Config {
	return api.Config{
		BodyLimit:             int(cfg.HTTP.BodyLimit),
		Auth:                  cfg.Auth,
		CoordinatorID:         cfg.Cluster.NodeID,
		MaxShardCount:         cfg.Resharding.MaxShardCount,
		MaxBrowseCount:        cfg.Limits.BrowseMaxCount,
		AuditRefusalWindow:    cfg.Audit.RefusalWindow,
		AuditRefusalAddresses: cfg.Audit.RefusalAddresses,
		AllowedOrigins:        cfg.HTTP.AllowedOrigins,
		ServerVersion:         version,
		Logger:                logger,
	}
}

func newLogger(c config.Log) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}
