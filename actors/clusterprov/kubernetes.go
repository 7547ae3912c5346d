package clusterprov

import (
	"fmt"
	"os"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/k8s"
	"k8s.io/client-go/rest"
)

// serviceAccountNamespace is where protoactor's k8s provider reads the
// namespace it registers in and watches (it has no option for it).
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// newKubernetes builds protoactor's k8s provider. With no RestConfig it uses
// the in-cluster config and checks that the pod's namespace can be read:
// upstream would otherwise log a warning and work on namespace "" (every
// request fails, forever retried). Nothing here contacts the API server.
//
// What the provider does once started (read from its source, never run
// here): it GETs its own pod (name = hostname), JSON-patches its labels
// (cluster.proto.actor/cluster=<name>, /port=<remote port>,
// /member-id=<random id>, /kind-<kind>=true), and WATCHes the pods of its
// namespace with label cluster.proto.actor/cluster=<name>. A pod is a member
// while it is Running, has a pod IP and all its containers are Ready; its
// address is podIP:port-label. On shutdown it removes its labels.
func newKubernetes(o Options) (cluster.ClusterProvider, error) {
	rc := o.Kubernetes.RestConfig
	if rc == nil {
		var err error
		if rc, err = rest.InClusterConfig(); err != nil {
			return nil, fmt.Errorf("%w: %v (it needs KUBERNETES_SERVICE_HOST/PORT and a mounted service account token)", ErrNotInKubernetes, err)
		}
		if b, err := os.ReadFile(serviceAccountNamespace); err != nil || len(b) == 0 {
			return nil, fmt.Errorf("%w: cannot read the pod's namespace from %s (automountServiceAccountToken must not be false): %v", ErrNotInKubernetes, serviceAccountNamespace, err)
		}
	}
	p, err := k8s.NewWithConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("clusterprov: kubernetes client: %w", err)
	}
	return p, nil
}
