package clusterprov

import (
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"k8s.io/client-go/rest"

	"github.com/redisstream/coordinator/config"
)

// Options are the cluster settings of one node. FromConfig fills them from
// config.Cluster; the fields without a config key are for tests.
type Options struct {
	// Provider is config.ProviderAutomanaged, ProviderKubernetes or
	// ProviderTest (ProviderSingle runs no cluster: New answers ErrSingle).
	Provider string
	// Name is the cluster name, for cluster.Configure: the providers read it
	// from the cluster (automanaged compares it, kubernetes puts it in a pod
	// label); nodes only form a cluster with nodes of the same name.
	Name string
	// Host is the bind host of the actor remote and, for automanaged, of the
	// health endpoint.
	Host string
	// AdvertiseHost is the host other nodes reach this node at; empty = Host.
	AdvertiseHost string
	// Port is the actor remote port; 0 picks a free port (nothing can then be
	// advertised: see RemoteConfig).
	Port int
	// ManagePort is the automanaged health endpoint's port.
	ManagePort int
	// Seeds are host:manage-port of every automanaged node, this one included.
	Seeds []string
	// Kubernetes configures the kubernetes provider.
	Kubernetes KubernetesOptions
	// TestAgent is the in-memory registry shared by the nodes of one test
	// process (provider "test" only, and then required).
	TestAgent *test.InMemAgent
	// RefreshInterval is how often an automanaged node polls every seed;
	// 0 = DefaultRefreshInterval. A seed that misses one poll (2 s HTTP
	// timeout, upstream) leaves the member list of the polling node.
	RefreshInterval time.Duration
	// TLS, when set, makes the actor remote and the automanaged health
	// endpoint require and present node certificates of the cluster CA
	// (tls.go). nil = plaintext (config cluster.insecure).
	TLS tlsSource
	// Logger receives this package's own log lines (the providers log
	// through the cluster's logger); nil = slog.Default().
	Logger *slog.Logger
}

// KubernetesOptions configure the kubernetes provider. It has no settings of
// its own in protoactor: the namespace comes from the pod's service account
// (/var/run/secrets/kubernetes.io/serviceaccount/namespace), the pod name is
// the hostname, members are found by the label
// cluster.proto.actor/cluster=<Name>.
type KubernetesOptions struct {
	// RestConfig connects to the API server. nil = the in-cluster config
	// (KUBERNETES_SERVICE_HOST/PORT and the service account token), which
	// fails outside a pod. Tests pass a config that is never contacted:
	// New makes no request, StartMember does.
	RestConfig *rest.Config
}

// DefaultRefreshInterval is how often an automanaged node polls the health
// endpoint of every seed (protoactor's own default).
const DefaultRefreshInterval = 2 * time.Second

// FromConfig returns the Options of cfg with the given logger.
func FromConfig(cfg config.Cluster, logger *slog.Logger) Options {
	return Options{
		Provider:      cfg.Provider,
		Name:          cfg.Name,
		Host:          cfg.Host,
		AdvertiseHost: cfg.AdvertiseHost,
		Port:          cfg.Port,
		ManagePort:    cfg.ManagePort,
		Seeds:         append([]string(nil), cfg.Seeds...),
		Logger:        logger,
	}
}

// advertised is the host other nodes reach this node at.
func (o Options) advertised() string {
	if o.AdvertiseHost != "" {
		return o.AdvertiseHost
	}
	return o.Host
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}
