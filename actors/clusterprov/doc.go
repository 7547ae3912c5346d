// Package clusterprov builds the protoactor-go cluster provider and the actor
// remote configuration of a coordinator node from its cluster settings
// (config.Cluster), so that the node's cluster wiring does not depend on
// which provider runs.
//
// # Contract
//
// New(o) returns the cluster.ClusterProvider named by o.Provider:
//
//   - "automanaged": our own provider, speaking the protocol of protoactor's
//     automanaged one. Every node polls GET http(s)://SEED/_health on every
//     seed (host:manage-port of ALL nodes, this one included) every
//     RefreshInterval; the answering nodes of the same cluster name are the
//     member list, and a seed that misses one poll leaves it. Unlike
//     upstream, which binds its health endpoint on 0.0.0.0, the endpoint
//     listens on o.Host:o.ManagePort only, a port already in use is an error
//     of StartMember instead of a log line of a background goroutine, and
//     with o.TLS it is HTTPS with client certificates (tls.go).
//   - "kubernetes": protoactor's k8s provider. It patches its own pod's
//     labels (cluster.proto.actor/*) and watches the pods of its namespace
//     carrying its cluster's label; needs RBAC get, patch and watch on pods
//     in its namespace (docs/deploy/kubernetes.yaml). StartMember first
//     checks that access (ErrKubernetesAccess), because upstream retries a
//     failed registration in a busy loop. Tested here against a fake API
//     server on loopback; test/k8s (make test-k8s) runs coordinator
//     processes against a real kube-apiserver.
//   - "test": protoactor's in-memory test provider on o.TestAgent; every
//     node of one test process shares the agent.
//
// Provider "single" runs no cluster at all: New answers ErrSingle, so the
// caller must not build a cluster. Any other name is ErrUnknownProvider.
// New never touches the network: listeners are opened and peers contacted
// by StartMember.
//
// RemoteConfig(o) is the actor remote of the node: it binds o.Host:o.Port
// and advertises o.AdvertiseHost:o.Port (o.Host when AdvertiseHost is
// empty); with o.TLS its gRPC server and dials use mutual TLS (tls.go). protoactor's remote takes its advertised *address* (host:port)
// verbatim, so with port 0 nothing can be advertised: the listener's own
// address is used, which is only reachable when Host is a concrete address.
//
// Options mirror config.Cluster (FromConfig) and are checked again here
// (ErrInvalidOptions) because a caller may build them by hand; the
// configuration layer already refuses, naming the key, every combination
// this package would refuse.
//
// # Upstream behaviour the cluster wiring must handle (this protoactor-go version)
//
//   - cluster.StartMember panics when the remote cannot bind or the provider
//     fails to start; StartMember here turns that into an error.
//   - Cluster.Shutdown(false) does not shut the provider down: the
//     automanaged poller and health endpoint keep running.
//   - automanaged (kept by our provider): a seed that misses one poll (HTTP
//     timeout 2 s) leaves the polling node's member list and is blocked by
//     it for good. The evicted
//     node is not told: in a run of two processes here, the survivor dropped
//     the other about 2 s after SIGSTOP; after SIGCONT the evicted node still
//     listed both members, had nothing in its block list, and got no
//     topology event (the remote ignores the "blocked" flag of a connect
//     response: a TODO upstream). Detecting its own eviction needs a signal
//     of our own (e.g. the node registry in Redis).
//   - kubernetes: the member id is a random id per start, not
//     ActorSystem.ID; compare members with this node by address, not id.
//     A pod that is not Ready is not a member, of its own view either.
//   - Member addresses are host + ":" + port without brackets: no IPv6.
//   - -race: remote.BlockList.BlockedMembers reads without the lock that
//     Block writes under; any multi-node cluster in one process trips it.
package clusterprov
