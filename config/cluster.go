package config

import (
	"net"
	"strconv"
	"strings"
)

// Advertised returns the host other nodes reach this node's actor remote
// at: cluster.advertise-host, or cluster.host when it is empty.
func (cl Cluster) Advertised() string {
	if cl.AdvertiseHost != "" {
		return cl.AdvertiseHost
	}
	return cl.Host
}

// OwnSeed is this node's entry in cluster.seeds under the automanaged
// provider: the advertised host and cluster.manage-port. Every node polls
// every seed, itself included; a node missing from the list never sees
// itself as a member.
func (cl Cluster) OwnSeed() string {
	return net.JoinHostPort(cl.Advertised(), strconv.Itoa(cl.ManagePort))
}

// isWildcardHost reports whether a bind host means "all interfaces"
// (0.0.0.0, ::): an address that no other node can connect to.
func isWildcardHost(h string) bool {
	ip := net.ParseIP(h)
	return ip != nil && ip.IsUnspecified()
}

// isLoopbackHost reports whether h is a loopback address or "localhost".
func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// sameHostPort compares two host:port strings, the host case-insensitively.
func sameHostPort(a, b string) bool {
	ha, pa, errA := net.SplitHostPort(a)
	hb, pb, errB := net.SplitHostPort(b)
	if errA != nil || errB != nil {
		return false
	}
	pia, errA := strconv.Atoi(pa)
	pib, errB := strconv.Atoi(pb)
	return errA == nil && errB == nil && pia == pib && strings.EqualFold(ha, hb)
}
