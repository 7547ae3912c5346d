package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Cluster configures the actor host cluster.
type Cluster struct {
	Name          string     `koanf:"name" default:"rsc" validate:"name" help:"cluster name; nodes only join a cluster of the same name"`
	Provider      string     `koanf:"provider" default:"single" validate:"oneof=single automanaged kubernetes test" help:"cluster provider: single (one node, no network), automanaged (static seeds), kubernetes (pod watch) or test (in-process)"`
	Host          string     `koanf:"host" default:"127.0.0.1" validate:"host" help:"host or IP the actor remote binds to (0.0.0.0 = all interfaces; then set cluster.advertise-host)"`
	AdvertiseHost string     `koanf:"advertise-host" validate:"omitempty,advertise" help:"host or IP other nodes reach this node's actor remote at (default: cluster.host; the pod IP on Kubernetes)"`
	Port          int        `koanf:"port" validate:"min=0,max=65535" hint:"0 picks a free port" help:"actor remote port; automanaged and kubernetes need a fixed one, test may use 0 (a free port); single opens none"`
	ManagePort    int        `koanf:"manage-port" validate:"omitempty,min=1,max=65535" help:"automanaged: port of this node's cluster health endpoint, which the other nodes poll (required with automanaged)"`
	Seeds         []string   `koanf:"seeds" validate:"dive,hostport" help:"automanaged: host:manage-port of ALL nodes, this one included, comma separated"`
	NodeID        string     `koanf:"node-id" validate:"name" help:"unique id of this node (default: derived from the hostname)"`
	TLS           ClusterTLS `koanf:"tls"`
	Insecure      bool       `koanf:"insecure" help:"automanaged or kubernetes without cluster.tls: accept that every process that reaches cluster.port (and cluster.manage-port) can act as a node; only on a network you trust"`
}

// ClusterTLS is the mutual TLS between nodes: the actor remote and the
// automanaged health endpoint require a certificate signed by the cluster CA
// and present this node's. Files are re-read when they change.
type ClusterTLS struct {
	CAFile         string        `koanf:"ca-file" validate:"omitempty,trimmed" help:"PEM file of the cluster CA: only peers with a certificate it signed are nodes (use a CA that signs nothing else); with cert-manager, ca.crt"`
	CertFile       string        `koanf:"cert-file" validate:"omitempty,trimmed" help:"PEM file of this node's certificate, signed by the cluster CA, for server and client authentication; with cert-manager, tls.crt"`
	KeyFile        string        `koanf:"key-file" validate:"omitempty,trimmed" help:"PEM file of this node's private key; with cert-manager, tls.key"`
	ReloadInterval time.Duration `koanf:"reload-interval" default:"10s" validate:"min=1s,max=1h" help:"how often the cluster.tls files are checked for a rotation; a bad rotated file keeps the last good one"`
}

// Enabled reports whether any cluster.tls file is set.
func (t ClusterTLS) Enabled() bool { return t.CAFile != "" || t.CertFile != "" || t.KeyFile != "" }

// Cluster providers.
const (
	ProviderSingle      = "single"
	ProviderAutomanaged = "automanaged"
	ProviderKubernetes  = "kubernetes"
	ProviderTest        = "test"
)

// Advertised returns the host other nodes reach this node's actor remote
// at: cluster.advertise-host, or cluster.host when it is empty.
func (cl Cluster) Advertised() string {
	if cl.AdvertiseHost != "" {
		return cl.AdvertiseHost
	}
	return cl.Host
}

// OwnSeed is this node's entry in cluster.seeds (automanaged): the
// advertised host and cluster.manage-port.
func (cl Cluster) OwnSeed() string {
	return net.JoinHostPort(cl.Advertised(), strconv.Itoa(cl.ManagePort))
}

// isWildcardHost reports whether h means "all interfaces" (0.0.0.0, ::).
func isWildcardHost(h string) bool {
	ip := net.ParseIP(h)
	return ip != nil && ip.IsUnspecified()
}

// isLoopbackHost reports whether h is a loopback address or "localhost".
func isLoopbackHost(h string) bool {
	ip := net.ParseIP(h)
	return strings.EqualFold(h, "localhost") || ip != nil && ip.IsLoopback()
}

// checkHost accepts a host name or an IP address, without a port.
func checkHost(h string) error {
	if h == "" {
		return errors.New("must not be empty")
	}
	return errorIf(strings.ContainsAny(h, " \t:/") && net.ParseIP(h) == nil, "must be a host name or IP address (no port)")
}

// sameHostPort compares two host:port strings, the host case-insensitively.
func sameHostPort(a, b string) bool {
	ha, pa, errA := net.SplitHostPort(a)
	hb, pb, errB := net.SplitHostPort(b)
	pia, errPA := strconv.Atoi(pa)
	pib, errPB := strconv.Atoi(pb)
	return errors.Join(errA, errB, errPA, errPB) == nil && pia == pib && strings.EqualFold(ha, hb)
}

// checkLabelValue checks a Kubernetes label value (after checkName).
func checkLabelValue(s string) error {
	alnum := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' }
	if len(s) > 63 {
		return fmt.Errorf("must be at most 63 characters (has %d)", len(s))
	} else if s != "" && (!alnum(s[0]) || !alnum(s[len(s)-1])) {
		return errors.New("must begin and end with a letter or digit")
	}
	return nil
}
