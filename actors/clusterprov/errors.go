package clusterprov

import "errors"

var (
	// ErrSingle is New's answer for provider "single": the node runs alone,
	// with no cluster, listener or provider; the caller must not build one.
	ErrSingle = errors.New("clusterprov: provider single runs no cluster")
	// ErrUnknownProvider names a provider this package cannot build.
	ErrUnknownProvider = errors.New("clusterprov: unknown cluster provider")
	// ErrInvalidOptions is a combination of Options the provider cannot run
	// with (config.Validate refuses the same, naming the key).
	ErrInvalidOptions = errors.New("clusterprov: invalid cluster options")
	// ErrNotInKubernetes: provider kubernetes outside a pod (no in-cluster
	// API server config or no service account namespace).
	ErrNotInKubernetes = errors.New("clusterprov: kubernetes provider outside a Kubernetes pod")
	// ErrKubernetesAccess: the start check of the kubernetes provider found
	// that the pod cannot do what the provider needs (get its pod, patch and
	// watch pods in its namespace).
	ErrKubernetesAccess = errors.New("clusterprov: kubernetes provider cannot use the API server")
)
