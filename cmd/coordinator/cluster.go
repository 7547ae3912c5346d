package main

import (
	"errors"
	"log/slog"

	"github.com/redisstream/coordinator/actors/clusterprov"
	"github.com/redisstream/coordinator/actors/host"
	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/config"
)

// exitEvicted is the exit code of a node the cluster evicted: its supervisor
// (systemd, Kubernetes) should start it again; the new process joins fresh.
const exitEvicted = 3

// clusterOptions builds the host's cluster settings from cfg.Cluster (nil
// for provider single: no cluster, no listener). evicted receives the reason
// once if the cluster evicts this node.
func clusterOptions(cfg config.Config, logger *slog.Logger, reg *metrics.Metrics, evicted chan<- string) (*host.ClusterOptions, error) {
	o := clusterprov.FromConfig(cfg.Cluster, logger)
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
