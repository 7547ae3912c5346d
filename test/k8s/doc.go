// Package k8s runs the coordinator's kubernetes cluster provider against a
// real API server (issue 21, point 5): kube-apiserver built from the
// k8s.io/kubernetes module at the version this module pins, over Debian's
// etcd-server, both on loopback. The test applies the ServiceAccount, Role
// and RoleBinding of docs/deploy/kubernetes.yaml as they are, creates a Pod
// from the manifest's Deployment template for every coordinator process and
// stands in for the kubelet: it sets the pod's status (Running, pod IP,
// Ready) through the status subresource, mounts a service account token
// from the TokenRequest API bound to the pod, and runs the coordinator with
// the pod name as hostname (sandbox_test.go). The tests run in a network
// namespace of their own whose loopback also carries the pod IPs
// (netns_test.go). No scheduler, controller-manager or kubelet runs.
//
// This is a module of its own (test/k8s/go.mod) so that the root module
// never requires k8s.io/kubernetes; its replace directives are the
// k8s.io/kubernetes module's own, pointing at the published staging
// modules of the same release. It may import the standard library, the
// k8s.io modules, and the member SDK's protocol and redistest packages
// (membersdk, replaced by ../../membersdk); not the server's packages: the
// coordinator is built from the root module and run as a process.
//
// Run it with `make test-k8s` (Linux; needs etcd, installed by
// test/ensure-etcd.sh, and permission to create UTS and mount namespaces:
// root, or unprivileged user namespaces).
package k8s
