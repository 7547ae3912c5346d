package config

import (
	"fmt"
	"net"
	"slices"
	"strings"
)

// validateCluster checks the cluster section: each key on its own, then
// whether the keys fit cluster.provider. A key the provider would ignore is
// an error naming it (a node configured for a cluster that silently runs
// alone is the failure this prevents); consistency checks only run on keys
// that are valid on their own, so one mistake is reported once.
func (cl Cluster) validate(bad badFunc, failed map[string]bool) {
	if err := checkName(cl.Name); err != nil {
		bad("cluster.name", cl.Name, "%v", err)
	}
	providerOK := slices.Contains(validProviders, cl.Provider)
	if !providerOK {
		bad("cluster.provider", cl.Provider, "must be one of %s", strings.Join(validProviders, ", "))
	}
	hostOK := true
	if cl.Host == "" {
		bad("cluster.host", cl.Host, "must not be empty")
		hostOK = false
	} else if !validHost(cl.Host) {
		bad("cluster.host", cl.Host, "must be a host name or IP address (no port)")
		hostOK = false
	}
	advOK := true
	if cl.AdvertiseHost != "" {
		switch {
		case !validHost(cl.AdvertiseHost):
			bad("cluster.advertise-host", cl.AdvertiseHost, "must be a host name or IP address (no port)")
			advOK = false
		case isWildcardHost(cl.AdvertiseHost):
			bad("cluster.advertise-host", cl.AdvertiseHost, "is the all-interfaces address, which no other node can connect to; advertise this node's own address")
			advOK = false
		}
	}
	portOK, managePortOK := !failed["cluster.port"], !failed["cluster.manage-port"]
	seedsOK := true
	for i, s := range cl.Seeds {
		if err := checkHostPort(s, false, false); err != nil {
			bad(fmt.Sprintf("cluster.seeds[%d]", i), s, "%v", err)
			seedsOK = false
			continue
		}
		for j := range i {
			if sameHostPort(cl.Seeds[j], s) {
				bad(fmt.Sprintf("cluster.seeds[%d]", i), s, "is listed twice (cluster.seeds[%d])", j)
				seedsOK = false
				break
			}
		}
	}
	if err := checkName(cl.NodeID); err != nil {
		bad("cluster.node-id", cl.NodeID, "%v", err)
	}
	if !providerOK {
		return
	}

	p := cl.Provider
	ignored := func(key string, value any, usedBy string) {
		bad(key, value, "is ignored with cluster.provider = %s; %s, or remove it", p, usedBy)
	}
	if p == ProviderSingle {
		// One node, no listener: every network key would be ignored.
		if hostOK && cl.Host != DefaultClusterHost {
			ignored("cluster.host", cl.Host, "set cluster.provider to automanaged, kubernetes or test to run a cluster")
		}
		if advOK && cl.AdvertiseHost != "" {
			ignored("cluster.advertise-host", cl.AdvertiseHost, "set cluster.provider to automanaged, kubernetes or test to run a cluster")
		}
		if portOK && cl.Port != 0 {
			ignored("cluster.port", cl.Port, "set cluster.provider to automanaged, kubernetes or test to run a cluster")
		}
	}
	if p != ProviderAutomanaged {
		if managePortOK && cl.ManagePort != 0 {
			ignored("cluster.manage-port", cl.ManagePort, "only cluster.provider = automanaged uses it")
		}
		if seedsOK && len(cl.Seeds) > 0 {
			ignored("cluster.seeds", cl.Seeds, "only cluster.provider = automanaged uses it")
		}
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
		key := "cluster.host"
		if cl.AdvertiseHost != "" {
			key = "cluster.advertise-host"
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
	}
	if managePortOK && portOK && cl.ManagePort == cl.Port {
		bad("cluster.manage-port", cl.ManagePort, "must differ from cluster.port (%d)", cl.Port)
		managePortOK = false
	}
	switch {
	case !seedsOK:
	case len(cl.Seeds) == 0:
		bad("cluster.seeds", cl.Seeds, "is required with cluster.provider = automanaged: host:manage-port of every node, this one included")
	case hostOK && advOK && managePortOK && !containsSeed(cl.Seeds, cl.OwnSeed()):
		bad("cluster.seeds", cl.Seeds, "must include this node itself as %s (cluster.advertise-host or cluster.host, and cluster.manage-port): a node polls every seed, itself included, and is a member only if it answers its own poll", show(cl.OwnSeed()))
	}
}

func containsSeed(seeds []string, s string) bool {
	for _, x := range seeds {
		if sameHostPort(x, s) {
			return true
		}
	}
	return false
}

// validHost accepts a host name or an IP address, without a port.
func validHost(h string) bool {
	return !strings.ContainsAny(h, " \t:/") || net.ParseIP(h) != nil
}

// checkLabelValue checks a Kubernetes label value: at most 63 characters,
// [A-Za-z0-9._-], beginning and ending with a letter or digit.
func checkLabelValue(s string) error {
	if len(s) > 63 {
		return fmt.Errorf("must be at most 63 characters (has %d)", len(s))
	}
	alnum := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' }
	if s != "" && (!alnum(s[0]) || !alnum(s[len(s)-1])) {
		return fmt.Errorf("must begin and end with a letter or digit")
	}
	return nil
}
