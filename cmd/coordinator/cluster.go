package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/actors/clusterprov"
	"github.com/redisstream/coordinator/actors/host"
	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/internal/tlsfiles"
)

// exitEvicted is the exit code of a node the cluster evicted: its supervisor
// (systemd, Kubernetes) should start it again; the new process joins fresh.
const exitEvicted = 3

// clusterOptions builds the host's cluster settings from cfg.Cluster (nil
// for provider single: no cluster, no listener). evicted receives the reason
// once if the cluster evicts this node.
func clusterOptions(ctx context.Context, cfg config.Config, logger *slog.Logger, reg *metrics.Metrics, evicted chan<- string) (*host.ClusterOptions, error) {
	o := clusterprov.FromConfig(cfg.Cluster, logger)
	if cfg.Cluster.Provider != config.ProviderSingle {
		src, err := clusterTLS(ctx, cfg.Cluster, logger, evicted)
		if err != nil {
			return nil, err
		}
		if src != nil {
			o.TLS = src
		}
	}
	provider, err := clusterprov.New(o)
	if errors.Is(err, clusterprov.ErrSingle) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &host.ClusterOptions{
		Name: cfg.Cluster.Name, ProviderName: cfg.Cluster.Provider,
		Provider: provider, Remote: clusterprov.RemoteConfig(o),
		Metrics: reg,
		Evicted: func(reason string) {
			select {
			case evicted <- reason:
			default:
			}
		},
	}, nil
}

// clusterTLS loads the node's certificate, key and the cluster CA
// (cluster.tls.*) and re-reads them every reload interval until ctx ends;
// nil without cluster.tls. An error names the config key and the file.
//
// A node whose certificate expired with no renewal in place steps out: the
// other nodes refuse it from then on, and a node nobody can reach would
// hold its groups' activations while its peers start them again. It sends
// the reason to stepOut (the eviction path: hand the groups over, exit 3);
// the next start refuses the expired file with a line naming it.
func clusterTLS(ctx context.Context, cl config.Cluster, logger *slog.Logger, stepOut chan<- string) (*tlsfiles.Source, error) {
	if !cl.TLS.Enabled() {
		logger.Info("cluster ports without TLS: any process that reaches cluster.port or cluster.manage-port can act as a node; set cluster.tls.* to require node certificates",
			slog.String("provider", cl.Provider), slog.Bool("insecure", cl.Insecure))
		return nil, nil
	}
	src, err := tlsfiles.Load(tlsfiles.Files{
		CA: cl.TLS.CAFile, Cert: cl.TLS.CertFile, Key: cl.TLS.KeyFile,
		CAKey: "cluster.tls.ca-file", CertKey: "cluster.tls.cert-file", KeyKey: "cluster.tls.key-file",
	}, logger.With(slog.String("tls", "cluster")))
	if err != nil {
		return nil, err
	}
	go src.Watch(ctx, cl.TLS.ReloadInterval, func(na time.Time) {
		reason := fmt.Sprintf("this node's certificate (cluster.tls.cert-file %s) expired at %s and no renewed file is in place: the other nodes refuse it; renew it and start the node again",
			cl.TLS.CertFile, na.UTC().Format(time.RFC3339))
		logger.Error("stepping out of the cluster: node certificate expired", slog.String("file", cl.TLS.CertFile), slog.Time("notAfter", na))
		select {
		case stepOut <- reason:
		default:
		}
	})
	logger.Info("cluster ports require node certificates of the cluster CA (mutual TLS)",
		slog.String("ca", cl.TLS.CAFile), slog.String("cert", cl.TLS.CertFile), slog.Time("notAfter", src.NotAfter()))
	return src, nil
}
