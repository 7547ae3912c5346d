package k8s

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// fakeNode is the spec.nodeName of every pod: no scheduler runs, and no
// kubelet; the test does the kubelet's part for its pods.
const fakeNode = "rsc-test-node"

// pod is one Pod object and the coordinator process that runs as it.
type pod struct {
	Name, Namespace, IP   string
	HTTPPort, ClusterPort int
	UID                   types.UID
	proc                  *process
}

// URL is the coordinator's HTTP base URL.
func (p *pod) URL() string { return "http://" + p.IP + ":" + strconv.Itoa(p.HTTPPort) }

// ClusterAddress is where the other nodes reach this one (podIP:port label).
func (p *pod) ClusterAddress() string { return p.IP + ":" + strconv.Itoa(p.ClusterPort) }

// podEnv are settings every coordinator process of the tests gets on top of
// the manifest's container environment: short leases, so that failover
// happens within seconds, an empty redis-server that is a new deployment,
// and no authentication (the manifest's auth settings come from a Secret,
// which the tests do not create).
var podEnv = map[string]string{
	"RSC_AUTH_ALLOW_UNAUTHENTICATED":      "true",
	"RSC_COORDINATION_HEARTBEAT_INTERVAL": "200ms",
	"RSC_COORDINATION_MEMBER_LEASE_TTL":   "3s",
	"RSC_COORDINATION_REBALANCE_TIMEOUT":  "2s",
	"RSC_STORE_TRUST_EMPTY_STORE":         "true",
	"RSC_LOG_FORMAT":                      "text",
}

// runPod does what the scheduler and kubelet would: it creates the Pod of
// the manifest's Deployment template named name in ns (bound to fakeNode),
// sets its status to Running with pod IP ip through the status subresource,
// writes its service account mount (a token from the TokenRequest API bound
// to the pod, the CA, the namespace), starts the coordinator in a sandbox
// whose hostname is the pod name. markReadyWhenProbed does the readiness
// part.
func runPod(t *testing.T, ctx context.Context, ns, name, ip string, clusterPort int, redisAddr string) *pod {
	t.Helper()
	tmpl := man.Deployment.Spec.Template
	obj := &corev1.Pod{ObjectMeta: *tmpl.ObjectMeta.DeepCopy(), Spec: *tmpl.Spec.DeepCopy()}
	obj.Name, obj.Namespace, obj.Spec.NodeName = name, ns, fakeNode
	created, err := cp.Admin.CoreV1().Pods(ns).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s/%s from the manifest's Deployment template: %v", ns, name, err)
	}
	httpPorts, err := freePorts(ip, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := &pod{Name: name, Namespace: ns, IP: ip, HTTPPort: httpPorts[0], ClusterPort: clusterPort, UID: created.UID}
	now := metav1.Now()
	container := obj.Spec.Containers[0]
	p.setStatus(t, ctx, corev1.PodStatus{
		Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}, StartTime: &now,
		Conditions: conditions(false),
		ContainerStatuses: []corev1.ContainerStatus{{Name: container.Name, Image: container.Image, Ready: false, Started: ptr(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}},
	})

	saDir := filepath.Join(t.TempDir(), "serviceaccount")
	if err := os.MkdirAll(saDir, 0o755); err != nil {
		t.Fatal(err)
	}
	tok, err := cp.Admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, obj.Spec.ServiceAccountName, &authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{
		ExpirationSeconds: ptr(int64(3600)),
		BoundObjectRef:    &authnv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: name, UID: created.UID},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for service account %s/%s bound to pod %s: %v", ns, obj.Spec.ServiceAccountName, name, err)
	}
	ca, err := os.ReadFile(cp.pki.CACert)
	if err != nil {
		t.Fatal(err)
	}
	for file, content := range map[string][]byte{"token": []byte(tok.Status.Token), "ca.crt": ca, "namespace": []byte(ns)} {
		if err := os.WriteFile(filepath.Join(saDir, file), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	env := p.env(container, redisAddr)
	cmd, env, err := sandboxCommand(sandboxSpec{Hostname: name, SADir: saDir, Bin: coordinatorBin}, env)
	if err != nil {
		t.Fatal(err)
	}
	if p.proc, err = startCmd(ns+"/"+name, cmd, env); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.proc.Kill()
		if t.Failed() {
			t.Logf("pod %s/%s (%s) log, last 80 lines:\n%s", ns, name, p.URL(), p.proc.Tail(80))
		}
	})
	return p
}

// env is the container's environment as the kubelet would set it (fieldRef
// values resolved; secretKeyRef values are left out: the tests run without
// authentication) with the test's loopback addresses and podEnv on top.
func (p *pod) env(c corev1.Container, redisAddr string) []string {
	vars := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			vars[e.Name] = e.Value
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name":
			vars[e.Name] = p.Name
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			vars[e.Name] = p.Namespace
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "status.podIP":
			vars[e.Name] = p.IP
		}
	}
	// The manifest binds 0.0.0.0 on fixed ports; here every pod shares the
	// host's network, so each binds its own loopback address.
	vars["RSC_REDIS_ADDRS"] = redisAddr
	vars["RSC_HTTP_ADDR"] = p.IP + ":" + strconv.Itoa(p.HTTPPort)
	vars["RSC_CLUSTER_HOST"] = p.IP
	vars["RSC_CLUSTER_PORT"] = strconv.Itoa(p.ClusterPort)
	// The manifest mounts cert-manager's Secret for mutual TLS between nodes;
	// no kubelet mounts it here, so these pods, on the host's loopback, run
	// the cluster port without TLS (test/cluster covers mutual TLS).
	delete(vars, "RSC_CLUSTER_TLS_CA_FILE")
	delete(vars, "RSC_CLUSTER_TLS_CERT_FILE")
	delete(vars, "RSC_CLUSTER_TLS_KEY_FILE")
	delete(vars, "RSC_HTTP_TLS_CERT_FILE") // nor the HTTPS Secret: plain HTTP here
	delete(vars, "RSC_HTTP_TLS_KEY_FILE")
	vars["RSC_CLUSTER_INSECURE"] = "true"
	for k, v := range podEnv {
		vars[k] = v
	}
	vars["KUBERNETES_SERVICE_HOST"] = "127.0.0.1"
	vars["KUBERNETES_SERVICE_PORT"] = strconv.Itoa(cp.Port)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RSC_") && !strings.HasPrefix(kv, "KUBERNETES_") {
			env = append(env, kv)
		}
	}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

// setStatus replaces the pod's status through the status subresource (a
// merge patch, so the labels the coordinator patches are left alone).
func (p *pod) setStatus(t *testing.T, ctx context.Context, st corev1.PodStatus) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"status": st})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Admin.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		t.Fatalf("set the status of pod %s/%s: %v", p.Namespace, p.Name, err)
	}
}

// markReadyWhenProbed waits until the template's readiness probe answers
// 200 on the pod, then sets the container and the pod Ready.
func (p *pod) markReadyWhenProbed(t *testing.T, ctx context.Context, timeout time.Duration) {
	t.Helper()
	probe := man.Deployment.Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Path
	client := &http.Client{Timeout: time.Second}
	waitFor(t, timeout, "pod "+p.Name+" answers its readiness probe "+probe, func() (bool, string) {
		if p.proc.Exited() {
			t.Fatalf("pod %s: the coordinator exited (code %d):\n%s", p.Name, p.proc.ExitCode(), p.proc.Tail(40))
		}
		resp, err := client.Get(p.URL() + probe)
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	cur, err := cp.Admin.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := cur.Status
	st.Conditions = conditions(true)
	for i := range st.ContainerStatuses {
		st.ContainerStatuses[i].Ready = true
	}
	p.setStatus(t, ctx, st)
}

// conditions are a scheduled, started pod's conditions, Ready or not.
func conditions(ready bool) []corev1.PodCondition {
	r := corev1.ConditionFalse
	if ready {
		r = corev1.ConditionTrue
	}
	now := metav1.Now()
	return []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.ContainersReady, Status: r, LastTransitionTime: now},
		{Type: corev1.PodReady, Status: r, LastTransitionTime: now},
	}
}

func ptr[T any](v T) *T { return &v }

// waitFor polls cond every 100 ms until it holds; after timeout it fails the
// test with what cond last reported.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting until %s: %s", timeout, what, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
