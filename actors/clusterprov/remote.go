package clusterprov

import (
	"net"
	"strconv"

	"github.com/asynkron/protoactor-go/remote"
)

// RemoteConfig is the actor remote of the node: it binds o.Host:o.Port and
// advertises o.AdvertiseHost:o.Port (o.Host:o.Port when AdvertiseHost is
// empty), with mutual TLS when o.TLS is set (tls.go); extra options (server
// or dial options) are applied after.
//
// protoactor's remote takes the advertised value as the whole address
// (host:port) and uses it verbatim in every PID it hands out; so with port 0
// nothing is advertised and the remote uses its listener's address, which
// other nodes can reach only when Host is a concrete address (config refuses
// cluster.advertise-host with port 0, and port 0 with automanaged and
// kubernetes). The remote panics in Start when it cannot bind: the caller
// may check the port first.
func RemoteConfig(o Options, extra ...remote.ConfigOption) *remote.Config {
	var opts []remote.ConfigOption
	if o.Port != 0 {
		opts = append(opts, remote.WithAdvertisedHost(net.JoinHostPort(o.advertised(), strconv.Itoa(o.Port))))
	}
	opts = append(opts, remoteTLS(o)...)
	return remote.Configure(o.Host, o.Port, append(opts, extra...)...)
}
