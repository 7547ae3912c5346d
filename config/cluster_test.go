package config

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A valid node of each provider, loaded through the environment as a
// deployment would configure it.
func TestClusterProvidersLoad(t *testing.T) {
	cases := map[string][]string{
		"automanaged": {
			"RSC_CLUSTER_PROVIDER=automanaged", "RSC_CLUSTER_HOST=0.0.0.0", "RSC_CLUSTER_ADVERTISE_HOST=rsc-2",
			"RSC_CLUSTER_PORT=7000", "RSC_CLUSTER_MANAGE_PORT=7001",
			"RSC_CLUSTER_SEEDS=rsc-1:7001,RSC-2:7001,rsc-3:7001", // host names compare case-insensitively
			"RSC_CLUSTER_TLS_CA_FILE=/etc/rsc/cluster/ca.crt", "RSC_CLUSTER_TLS_CERT_FILE=/etc/rsc/cluster/tls.crt",
			"RSC_CLUSTER_TLS_KEY_FILE=/etc/rsc/cluster/tls.key",
		},
		"automanaged on loopback": {
			"RSC_CLUSTER_PROVIDER=automanaged", "RSC_CLUSTER_PORT=7000", "RSC_CLUSTER_MANAGE_PORT=7100",
			"RSC_CLUSTER_SEEDS=127.0.0.1:7100,127.0.0.1:7101,127.0.0.1:7102", "RSC_CLUSTER_INSECURE=true",
		},
		"kubernetes": {
			"RSC_CLUSTER_PROVIDER=kubernetes", "RSC_CLUSTER_HOST=0.0.0.0", "RSC_CLUSTER_ADVERTISE_HOST=10.244.1.7",
			"RSC_CLUSTER_PORT=7000", "RSC_CLUSTER_INSECURE=true",
		},
		"test with a free port": {"RSC_CLUSTER_PROVIDER=test"},
		"single":                {"RSC_CLUSTER_PROVIDER=single", "RSC_CLUSTER_NAME=other", "RSC_CLUSTER_NODE_ID=n1"},
	}
	for name, env := range cases {
		t.Run(name, func(t *testing.T) {
			cfg, err := Load(nil, env)
			require.NoError(t, err)
			if cfg.Cluster.Provider == ProviderAutomanaged {
				assert.True(t, slices.ContainsFunc(cfg.Cluster.Seeds, func(s string) bool { return sameHostPort(s, cfg.Cluster.OwnSeed()) }))
			}
		})
	}
}

func TestClusterAdvertised(t *testing.T) {
	cl := Cluster{Host: "0.0.0.0", ManagePort: 7001}
	assert.Equal(t, "0.0.0.0", cl.Advertised())
	cl.AdvertiseHost = "10.0.0.5"
	assert.Equal(t, "10.0.0.5", cl.Advertised())
	assert.Equal(t, "10.0.0.5:7001", cl.OwnSeed())
	cl.AdvertiseHost = "fd00::5"
	assert.Equal(t, "[fd00::5]:7001", cl.OwnSeed())
}

// Each misconfiguration fails alone, naming its key; in particular a key the
// chosen provider would ignore.
func TestClusterProviderRules(t *testing.T) {
	automanaged := func(c *Cluster) {
		c.Provider, c.Port, c.ManagePort = ProviderAutomanaged, 7000, 7001
		c.Seeds = []string{"127.0.0.1:7001", "10.0.0.2:7001"}
		c.Insecure = true
	}
	kubernetes := func(c *Cluster) {
		c.Provider, c.Host, c.AdvertiseHost, c.Port = ProviderKubernetes, "0.0.0.0", "10.244.0.9", 7000
		c.Insecure = true
	}
	cases := []struct {
		name   string
		mutate func(c *Cluster)
		want   string
	}{
		// single: no cluster, so every network key would be ignored.
		{"single with seeds", func(c *Cluster) { c.Seeds = []string{"a:1"} },
			`config: cluster.seeds = ["a:1"]: is ignored with cluster.provider = single; only cluster.provider = automanaged uses it, or remove it`},
		{"single with port", func(c *Cluster) { c.Port = 7000 },
			`config: cluster.port = 7000: is ignored with cluster.provider = single; set cluster.provider to automanaged, kubernetes or test`},
		{"single with host", func(c *Cluster) { c.Host = "0.0.0.0" },
			`config: cluster.host = "0.0.0.0": is ignored with cluster.provider = single`},
		{"single with advertise-host", func(c *Cluster) { c.AdvertiseHost = "10.0.0.1" },
			`config: cluster.advertise-host = "10.0.0.1": is ignored with cluster.provider = single`},
		{"single with manage-port", func(c *Cluster) { c.ManagePort = 7001 },
			`config: cluster.manage-port = 7001: is ignored with cluster.provider = single; only cluster.provider = automanaged uses it`},

		// automanaged
		{"automanaged without seeds", func(c *Cluster) { automanaged(c); c.Seeds = nil },
			`config: cluster.seeds = []: is required with cluster.provider = automanaged`},
		{"automanaged without manage-port", func(c *Cluster) { automanaged(c); c.ManagePort = 0 },
			`config: cluster.manage-port = 0: is required with cluster.provider = automanaged`},
		{"automanaged with port 0", func(c *Cluster) { automanaged(c); c.Port = 0 },
			`config: cluster.port = 0: must be a fixed port (1..65535) with cluster.provider = automanaged`},
		{"automanaged manage-port = port", func(c *Cluster) { automanaged(c); c.ManagePort = 7000; c.Seeds = []string{"127.0.0.1:7000"} },
			`config: cluster.manage-port = 7000: must differ from cluster.port (7000)`},
		{"automanaged seeds without this node", func(c *Cluster) { automanaged(c); c.Seeds = []string{"10.0.0.2:7001", "10.0.0.3:7001"} },
			`config: cluster.seeds = ["10.0.0.2:7001", "10.0.0.3:7001"]: must include this node itself as "127.0.0.1:7001"`},
		{"automanaged seeds with the remote port", func(c *Cluster) { automanaged(c); c.Seeds = []string{"127.0.0.1:7000"} },
			`must include this node itself as "127.0.0.1:7001"`},
		{"automanaged seeds by another name", func(c *Cluster) {
			automanaged(c)
			c.AdvertiseHost = "rsc-1"
			c.Seeds = []string{"127.0.0.1:7001"}
		}, `must include this node itself as "rsc-1:7001" (cluster.advertise-host or cluster.host, and cluster.manage-port)`},
		{"automanaged seed twice", func(c *Cluster) { automanaged(c); c.Seeds = []string{"127.0.0.1:7001", "127.0.0.1:7001"} },
			`config: cluster.seeds[1] = "127.0.0.1:7001": is listed twice (cluster.seeds[0])`},
		{"automanaged on all interfaces without advertise-host", func(c *Cluster) { automanaged(c); c.Host = "0.0.0.0" },
			`config: cluster.advertise-host = "": is required when cluster.host = "0.0.0.0" (all interfaces)`},
		{"manage-port out of range", func(c *Cluster) { automanaged(c); c.ManagePort = 70000 },
			`config: cluster.manage-port = 70000: must be between 1 and 65535`},

		// kubernetes
		{"kubernetes with seeds", func(c *Cluster) { kubernetes(c); c.Seeds = []string{"a:1"} },
			`config: cluster.seeds = ["a:1"]: is ignored with cluster.provider = kubernetes; only cluster.provider = automanaged uses it`},
		{"kubernetes with manage-port", func(c *Cluster) { kubernetes(c); c.ManagePort = 7001 },
			`config: cluster.manage-port = 7001: is ignored with cluster.provider = kubernetes`},
		{"kubernetes with port 0", func(c *Cluster) { kubernetes(c); c.Port = 0; c.AdvertiseHost = ""; c.Host = "10.244.0.9" },
			`config: cluster.port = 0: must be a fixed port (1..65535) with cluster.provider = kubernetes`},
		{"kubernetes on loopback", func(c *Cluster) { kubernetes(c); c.Host = "127.0.0.1" },
			`config: cluster.host = "127.0.0.1": binds the loopback interface only`},
		{"kubernetes without the pod IP", func(c *Cluster) { kubernetes(c); c.AdvertiseHost = "" },
			`config: cluster.advertise-host = "": is required when cluster.host = "0.0.0.0"`},
		{"kubernetes advertising loopback", func(c *Cluster) { kubernetes(c); c.AdvertiseHost = "localhost" },
			`config: cluster.advertise-host = "localhost": must be this pod's IP`},
		{"kubernetes name not a label value", func(c *Cluster) { kubernetes(c); c.Name = "rsc-" },
			`config: cluster.name = "rsc-": is used as a Kubernetes label value by the kubernetes provider: must begin and end with a letter or digit`},

		// mutual TLS between nodes
		{"automanaged without tls nor insecure", func(c *Cluster) { automanaged(c); c.Insecure = false },
			`config: cluster.tls.ca-file = "": is required with cluster.provider = automanaged: set cluster.tls.ca-file, cert-file and key-file`},
		{"kubernetes without tls nor insecure", func(c *Cluster) { kubernetes(c); c.Insecure = false },
			`or set cluster.insecure = true to accept that any process that reaches the cluster ports can act as a node`},
		{"single with cluster.tls", func(c *Cluster) { c.TLS.CAFile = "/ca.crt" },
			`config: cluster.tls.ca-file = "/ca.crt": is ignored with cluster.provider = single`},
		{"single with insecure", func(c *Cluster) { c.Insecure = true },
			`config: cluster.insecure = true: is ignored with cluster.provider = single`},
		{"tls without a key", func(c *Cluster) {
			automanaged(c)
			c.Insecure = false
			c.TLS = ClusterTLS{CAFile: "/ca.crt", CertFile: "/tls.crt", ReloadInterval: 10 * time.Second}
		},
			`config: cluster.tls.key-file = "": is required when any cluster.tls file is set`},
		{"tls without a CA", func(c *Cluster) {
			kubernetes(c)
			c.Insecure = false
			c.TLS = ClusterTLS{CertFile: "/tls.crt", KeyFile: "/tls.key", ReloadInterval: 10 * time.Second}
		},
			`config: cluster.tls.ca-file = "": is required when any cluster.tls file is set: mutual TLS needs the cluster CA`},
		{"tls and insecure", func(c *Cluster) {
			automanaged(c)
			c.TLS = ClusterTLS{CAFile: "/ca.crt", CertFile: "/tls.crt", KeyFile: "/tls.key", ReloadInterval: 10 * time.Second}
			c.Insecure = true
		}, `config: cluster.insecure = true: contradicts cluster.tls`},

		// test and general
		{"test with seeds", func(c *Cluster) { c.Provider = ProviderTest; c.Seeds = []string{"a:1"} },
			`config: cluster.seeds = ["a:1"]: is ignored with cluster.provider = test`},
		{"advertise-host with port 0", func(c *Cluster) { c.Provider = ProviderTest; c.AdvertiseHost = "10.0.0.1" },
			`config: cluster.advertise-host = "10.0.0.1": needs a fixed cluster.port`},
		{"advertise-host wildcard", func(c *Cluster) { c.Provider = ProviderTest; c.Port = 7000; c.AdvertiseHost = "::" },
			`config: cluster.advertise-host = "::": is the all-interfaces address`},
		{"advertise IPv6", func(c *Cluster) { kubernetes(c); c.AdvertiseHost = "fd00::9" },
			`config: cluster.advertise-host = "fd00::9": is an IPv6 address, which other nodes cannot dial`},
		{"bind IPv6 without advertise-host", func(c *Cluster) { c.Provider = ProviderTest; c.Host = "::1" },
			`config: cluster.host = "::1": is an IPv6 address`},
		{"advertise-host with port", func(c *Cluster) { c.Provider = ProviderTest; c.Port = 7000; c.AdvertiseHost = "h:1" },
			`config: cluster.advertise-host = "h:1": must be a host name or IP address (no port)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Default()
			c.mutate(&cfg.Cluster)
			err := cfg.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Len(t, strings.Split(err.Error(), "\n"), 1, "exactly one problem: %v", err)
		})
	}

	// The valid shapes behind those cases.
	for name, mutate := range map[string]func(*Cluster){
		"automanaged": automanaged, "kubernetes": kubernetes,
		"automanaged advertising a name": func(c *Cluster) {
			automanaged(c)
			c.Host, c.AdvertiseHost, c.Seeds = "0.0.0.0", "rsc-1", []string{"rsc-1:7001", "rsc-2:7001"}
		},
		"test on a fixed port advertised": func(c *Cluster) { c.Provider, c.Port, c.AdvertiseHost = ProviderTest, 7000, "10.0.0.1" },
	} {
		cfg := Default()
		mutate(&cfg.Cluster)
		assert.NoError(t, cfg.Validate(), name)
	}
}
