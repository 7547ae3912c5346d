package config

import (
	"fmt"
	"net"
	"slices"
)

// validate checks the rules between the cluster keys (each key on its own is
// checked by its tags): no duplicate seed, and the keys fit cluster.provider.
// A key the provider would ignore is an error naming it (a node configured
// for a cluster that silently runs alone is the failure this prevents); a
// rule reading a key that already failed is skipped.
func (cl Cluster) validate(bad badFunc, failed map[string]bool) {
	hostOK, advOK, portOK, managePortOK := !failed["cluster.host"], !failed["cluster.advertise-host"], !failed["cluster.port"], !failed["cluster.manage-port"]
	seedsOK := true
	for i, s := range cl.Seeds {
		if failed[fmt.Sprintf("cluster.seeds[%d]", i)] {
			seedsOK = false
		} else if j := slices.IndexFunc(cl.Seeds[:i], func(x string) bool { return sameHostPort(x, s) }); j >= 0 {
			bad(fmt.Sprintf("cluster.seeds[%d]", i), s, "is listed twice (cluster.seeds[%d])", j)
			seedsOK = false
		}
	}
	if failed["cluster.provider"] {
		return
	}

	p := cl.Provider
	ignored := func(set bool, key string, value any, usedBy string) {
		if set {
			bad(key, value, "is ignored with cluster.provider = %s; %s, or remove it", p, usedBy)
		}
	}
	if p == ProviderSingle { // one node, no listener: every network key would be ignored
		run := "set cluster.provider to automanaged, kubernetes or test to run a cluster"
		ignored(hostOK && cl.Host != byKey["cluster.host"].Def, "cluster.host", cl.Host, run)
		ignored(advOK && cl.AdvertiseHost != "", "cluster.advertise-host", cl.AdvertiseHost, run)
		ignored(portOK && cl.Port != 0, "cluster.port", cl.Port, run)
		ignored(cl.TLS.CAFile != "", "cluster.tls.ca-file", cl.TLS.CAFile, run)
		ignored(cl.TLS.CertFile != "", "cluster.tls.cert-file", cl.TLS.CertFile, run)
		ignored(cl.TLS.KeyFile != "", "cluster.tls.key-file", cl.TLS.KeyFile, run)
		ignored(cl.Insecure, "cluster.insecure", cl.Insecure, run)
	}
	cl.validateTLS(bad, failed)
	cl.requireTrust(bad)
	if p != ProviderAutomanaged {
		ignored(managePortOK && cl.ManagePort != 0, "cluster.manage-port", cl.ManagePort, "only cluster.provider = automanaged uses it")
		ignored(seedsOK && len(cl.Seeds) > 0, "cluster.seeds", cl.Seeds, "only cluster.provider = automanaged uses it")
	}
	if p == ProviderSingle {
		return
	}

	// A cluster provider: this node must be reachable at what it advertises.
	if hostOK && advOK && cl.AdvertiseHost == "" && isWildcardHost(cl.Host) {
		bad("cluster.advertise-host", "", "is required when cluster.host = %s (all interfaces): other nodes need an address to reach this node at (on Kubernetes the pod IP, from the downward API)", show(cl.Host))
		advOK = false
	}
	if ip := net.ParseIP(cl.Advertised()); hostOK && advOK && ip != nil && ip.To4() == nil && !ip.IsUnspecified() {
		key := "cluster.advertise-host"
		if cl.AdvertiseHost == "" {
			key = "cluster.host"
		}
		bad(key, cl.Advertised(), "is an IPv6 address, which other nodes cannot dial: protoactor-go writes member addresses as host:port without brackets; advertise an IPv4 address or a host name")
		advOK = false
	}
	if portOK && advOK && cl.Port == 0 && cl.AdvertiseHost != "" {
		bad("cluster.advertise-host", cl.AdvertiseHost, "needs a fixed cluster.port: the actor remote advertises host:port as configured, and port 0 is only known after binding")
	}
	if portOK && cl.Port == 0 && (p == ProviderAutomanaged || p == ProviderKubernetes) {
		bad("cluster.port", 0, "must be a fixed port (1..65535) with cluster.provider = %s: firewalls, container ports and the advertised address need it", p)
	}
	if p == ProviderKubernetes {
		if hostOK && isLoopbackHost(cl.Host) {
			bad("cluster.host", cl.Host, "binds the loopback interface only, so other pods cannot connect; use 0.0.0.0 with cluster.advertise-host = the pod IP")
		}
		if advOK && isLoopbackHost(cl.Advertised()) {
			bad("cluster.advertise-host", cl.AdvertiseHost, "must be this pod's IP (downward API status.podIP), not a loopback address")
		}
		if err := checkLabelValue(cl.Name); err != nil {
			bad("cluster.name", cl.Name, "is used as a Kubernetes label value by the kubernetes provider: %v", err)
		}
	}
	if p != ProviderAutomanaged {
		return
	}

	// automanaged: every node polls GET http://SEED/_health on every seed.
	if managePortOK && cl.ManagePort == 0 {
		bad("cluster.manage-port", 0, "is required with cluster.provider = automanaged: the port of this node's cluster health endpoint, polled by every node")
		managePortOK = false
	} else if managePortOK && portOK && cl.ManagePort == cl.Port {
		bad("cluster.manage-port", cl.ManagePort, "must differ from cluster.port (%d)", cl.Port)
		managePortOK = false
	}
	switch own := cl.OwnSeed(); {
	case !seedsOK:
	case len(cl.Seeds) == 0:
		bad("cluster.seeds", cl.Seeds, "is required with cluster.provider = automanaged: host:manage-port of every node, this one included")
	case hostOK && advOK && managePortOK && !slices.ContainsFunc(cl.Seeds, func(x string) bool { return sameHostPort(x, own) }):
		bad("cluster.seeds", cl.Seeds, "must include this node itself as %s (cluster.advertise-host or cluster.host, and cluster.manage-port): a node polls every seed, itself included, and is a member only if it answers its own poll", show(own))
	}
}

// validateTLS checks that cluster.tls names all three files or none, and
// that cluster.insecure is not set beside it. The files themselves are read
// and checked at start (tlsfiles), which names the key and the file.
func (cl Cluster) validateTLS(bad badFunc, failed map[string]bool) {
	t := cl.TLS
	if !t.Enabled() || cl.Provider == ProviderSingle {
		return
	}
	for _, k := range []struct {
		key, val string
	}{{"cluster.tls.ca-file", t.CAFile}, {"cluster.tls.cert-file", t.CertFile}, {"cluster.tls.key-file", t.KeyFile}} {
		if k.val == "" && !failed[k.key] {
			bad(k.key, "", "is required when any cluster.tls file is set: mutual TLS needs the cluster CA, this node's certificate and its key")
		}
	}
	if cl.Insecure {
		bad("cluster.insecure", true, "contradicts cluster.tls: remove cluster.insecure to run with mutual TLS, or the cluster.tls files to run without")
	}
}

// requireTrust refuses a provider that opens cluster ports to other
// machines (automanaged, kubernetes) without cluster.tls unless
// cluster.insecure says the network is trusted: without either, any
// process that reaches cluster.port could act as a node.
func (cl Cluster) requireTrust(bad badFunc) {
	if (cl.Provider == ProviderAutomanaged || cl.Provider == ProviderKubernetes) && !cl.TLS.Enabled() && !cl.Insecure {
		bad("cluster.tls.ca-file", "", "is required with cluster.provider = %s: set cluster.tls.ca-file, cert-file and key-file so that only nodes with a certificate of the cluster CA can use cluster.port (docs/OPERATIONS.md, \"Security model\"), or set cluster.insecure = true to accept that any process that reaches the cluster ports can act as a node", cl.Provider)
	}
}
