package clusterprov

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/k8s"
	authv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// serviceAccountNamespace is where protoactor's k8s provider reads the
// namespace it registers in and watches (it has no option for it).
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// preflightTimeout bounds the API calls of the start check.
const preflightTimeout = 10 * time.Second

// kubernetesProvider is protoactor's k8s provider with a start check.
//
// What the provider does once started (read from its source; run here
// against a fake API server, and in test/k8s against a real one): it GETs
// its own pod (name = hostname), JSON-patches its labels
// (cluster.proto.actor/cluster=<name>, /port=<remote port>,
// /member-id=<random id>, /kind-<kind>=true), and WATCHes the pods of its
// namespace with label cluster.proto.actor/cluster=<name>. A pod is a
// member while it is Running, has a pod IP and all its containers are
// Ready; its address is podIP:port-label. On shutdown it removes its labels.
//
// When the GET or the PATCH fails (no RBAC, wrong pod name, empty
// namespace), upstream retries registration at once, forever, logging an
// ERROR each time: a busy loop. So StartMember first GETs the pod and asks
// the API server (SelfSubjectAccessReview, allowed to every authenticated
// user) whether patch and watch on pods are allowed, and fails the start
// with the reason instead.
type kubernetesProvider struct {
	*k8s.Provider
	client    kubernetes.Interface
	namespace string // the pod's, as upstream reads it
	log       *slog.Logger
}

var _ cluster.ClusterProvider = (*kubernetesProvider)(nil)

// newKubernetes builds the provider. With no RestConfig it uses the
// in-cluster config and checks that the pod's namespace can be read:
// upstream would otherwise log a warning and work on namespace "", where
// every request fails. Nothing here contacts the API server.
func newKubernetes(o Options) (*kubernetesProvider, error) {
	rc := o.Kubernetes.RestConfig
	if rc == nil {
		var err error
		if rc, err = rest.InClusterConfig(); err != nil {
			return nil, fmt.Errorf("%w: %v (it needs KUBERNETES_SERVICE_HOST/PORT and a mounted service account token)", ErrNotInKubernetes, err)
		}
	}
	ns, err := os.ReadFile(serviceAccountNamespace)
	if err != nil && o.Kubernetes.RestConfig == nil {
		return nil, fmt.Errorf("%w: cannot read the pod's namespace from %s (automountServiceAccountToken must not be false): %v", ErrNotInKubernetes, serviceAccountNamespace, err)
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("clusterprov: kubernetes client: %w", err)
	}
	p, err := k8s.NewWithConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("clusterprov: kubernetes client: %w", err)
	}
	return &kubernetesProvider{Provider: p, client: client, namespace: strings.TrimSpace(string(ns)), log: o.logger()}, nil
}

// StartMember checks access to the API server, then starts the upstream
// member (registration and pod watch run in the background).
func (p *kubernetesProvider) StartMember(c *cluster.Cluster) error {
	if err := p.preflight(); err != nil {
		return err
	}
	return p.Provider.StartMember(c)
}

// preflight GETs this pod and checks that patch and watch on pods are
// allowed in its namespace: the calls upstream makes and retries forever.
func (p *kubernetesProvider) preflight() error {
	pod, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("%w: hostname (the pod name): %v", ErrKubernetesAccess, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), preflightTimeout)
	defer cancel()
	if p.namespace == "" {
		return fmt.Errorf("%w: no namespace (read from %s)", ErrKubernetesAccess, serviceAccountNamespace)
	}
	if _, err := p.client.CoreV1().Pods(p.namespace).Get(ctx, pod, metav1.GetOptions{}); err != nil {
		return fmt.Errorf("%w: cannot get this pod %s/%s: %v (the Role must allow get on pods; the hostname must be the pod name, so do not set spec.hostname)",
			ErrKubernetesAccess, p.namespace, pod, err)
	}
	for _, verb := range []string{"patch", "watch"} {
		review, err := p.client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authv1.SelfSubjectAccessReview{
			Spec: authv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authv1.ResourceAttributes{
				Namespace: p.namespace, Verb: verb, Resource: "pods"}},
		}, metav1.CreateOptions{})
		if err != nil { // the check itself is not allowed here: go on, upstream will tell
			p.log.Warn("cannot check the kubernetes provider's access (SelfSubjectAccessReview)", slog.String("verb", verb), slog.Any("err", err))
			continue
		}
		if !review.Status.Allowed {
			return fmt.Errorf("%w: the service account may not %s pods in namespace %s%s (the Role needs get, patch and watch on pods: docs/deploy/kubernetes.yaml)",
				ErrKubernetesAccess, verb, p.namespace, reason(review.Status.Reason))
		}
	}
	return nil
}

func reason(r string) string {
	if r == "" {
		return ""
	}
	return " (" + r + ")"
}
