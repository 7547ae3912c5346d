package clusterprov

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/redisstream/coordinator/config"
)

// fakeAPIServer is the little of the Kubernetes API the k8s provider uses,
// on loopback: one pod (this process, named by the hostname), GET, JSON
// PATCH of its labels, and WATCH of pods. It records every request as
// "VERB path", VERB being the RBAC verb.
type fakeAPIServer struct {
	mu       sync.Mutex
	pod      corev1.Pod
	changed  chan struct{}   // closed and replaced on every change
	deny     map[string]bool // verbs a SelfSubjectAccessReview denies
	requests []string
}

func newFakeAPIServer(podName, podIP string) *fakeAPIServer {
	return &fakeAPIServer{changed: make(chan struct{}), deny: map[string]bool{}, pod: corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: podName, Namespace: fakeNamespace, UID: "uid-1", Labels: map[string]string{"app.kubernetes.io/name": "rsc-coordinator"}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: podIP, PodIPs: []corev1.PodIP{{IP: podIP}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "coordinator", Ready: true}}},
	}}
}

func (f *fakeAPIServer) record(verb string, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, verb+" "+r.URL.Path)
}

func (f *fakeAPIServer) snapshot() (corev1.Pod, chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.pod.DeepCopy(), f.changed
}

const fakeNamespace = "rsc"

func (f *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	podPath := "/api/v1/namespaces/" + fakeNamespace + "/pods/" + f.pod.Name
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews":
		f.record("create", r)
		var review authv1.SelfSubjectAccessReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Spec.ResourceAttributes == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		a := review.Spec.ResourceAttributes
		review.Status.Allowed = a.Namespace == fakeNamespace && a.Resource == "pods" && !f.deny[a.Verb]
		review.Status.Reason = "fake RBAC"
		_ = json.NewEncoder(w).Encode(review)
	case r.Method == http.MethodGet && r.URL.Query().Get("watch") == "true" && r.URL.Path == "/api/v1/namespaces/"+fakeNamespace+"/pods":
		f.record("watch", r)
		f.watch(w, r)
	case r.Method == http.MethodGet && r.URL.Path == podPath:
		f.record("get", r)
		pod, _ := f.snapshot()
		_ = json.NewEncoder(w).Encode(pod)
	case r.Method == http.MethodPatch && r.URL.Path == podPath:
		f.record("patch", r)
		var ops []struct {
			Op    string            `json:"op"`
			Path  string            `json:"path"`
			Value map[string]string `json:"value"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &ops); err != nil || len(ops) != 1 || ops[0].Op != "replace" || ops[0].Path != "/metadata/labels" ||
			r.Header.Get("Content-Type") != "application/json-patch+json" {
			http.Error(w, "unexpected patch "+string(body), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.pod.Labels = ops[0].Value
		close(f.changed)
		f.changed = make(chan struct{})
		pod := *f.pod.DeepCopy()
		f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(pod)
	default:
		f.record(r.Method+"?", r)
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: http.StatusNotFound, Message: "not faked: " + r.URL.Path})
	}
}

// watch streams the pod (ADDED, then MODIFIED on every change) while it
// matches the label selector "key=value".
func (f *fakeAPIServer) watch(w http.ResponseWriter, r *http.Request) {
	key, value, _ := strings.Cut(r.URL.Query().Get("labelSelector"), "=")
	flusher := w.(http.Flusher)
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	kind := "ADDED"
	for {
		pod, changed := f.snapshot()
		if pod.Labels[key] == value || kind == "MODIFIED" { // a pod that loses the label is reported once more
			_ = json.NewEncoder(w).Encode(map[string]any{"type": kind, "object": pod})
			flusher.Flush()
			kind = "MODIFIED"
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// The k8s provider against a fake API server on loopback: it registers
// itself through its pod's labels, finds itself through the pod watch, and
// removes its labels on shutdown — using exactly the RBAC verbs of
// docs/deploy/kubernetes.yaml. This checks our wiring and the manifest's Role,
// not a real Kubernetes.
func TestKubernetesProviderAgainstAFakeAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster node")
	}
	podName, err := os.Hostname()
	require.NoError(t, err)
	fake := newFakeAPIServer(podName, "127.0.0.1")
	api := httptest.NewServer(fake)
	defer api.Close()

	port := freePort(t)
	o := Options{Provider: config.ProviderKubernetes, Name: "rsc-test", Host: "127.0.0.1", AdvertiseHost: "127.0.0.1", Port: port,
		Kubernetes: KubernetesOptions{RestConfig: &rest.Config{Host: api.URL}}, Logger: quiet}
	c := newNode(t, o)
	inNamespace(c.Config.ClusterProvider.(*kubernetesProvider), fakeNamespace)
	var mu sync.Mutex
	var members []*cluster.Member
	c.ActorSystem.EventStream.Subscribe(func(ev any) {
		if top, ok := ev.(*cluster.ClusterTopology); ok {
			mu.Lock()
			members = top.Members
			mu.Unlock()
		}
	})
	require.NoError(t, StartMember(c))

	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(members) == 1 },
		20*time.Second, 50*time.Millisecond, "the node finds itself through the pod watch")
	mu.Lock()
	m := members[0]
	mu.Unlock()
	assert.Equal(t, "127.0.0.1", m.Host, "members are reached at the pod IP")
	assert.EqualValues(t, port, m.Port, "and the port label")
	assert.Contains(t, m.Kinds, "where")

	pod, _ := fake.snapshot()
	assert.Equal(t, "rsc-test", pod.Labels["cluster.proto.actor/cluster"])
	assert.Equal(t, "true", pod.Labels["cluster.proto.actor/kind-where"])
	assert.Equal(t, "rsc-coordinator", pod.Labels["app.kubernetes.io/name"], "the pod's own labels are kept")
	assert.NotEqual(t, c.ActorSystem.ID, m.Id, "upstream: the member id is the provider's random id, not the actor system's id")

	c.Shutdown(true)
	pod, _ = fake.snapshot()
	assert.Equal(t, map[string]string{"app.kubernetes.io/name": "rsc-coordinator"}, pod.Labels, "shutdown removes the cluster labels")

	fake.mu.Lock()
	defer fake.mu.Unlock()
	verbs := map[string]bool{}
	for _, r := range fake.requests {
		verb, path, _ := strings.Cut(r, " ")
		if verb == "create" { // the start check: allowed to every authenticated user, no Role rule
			assert.Equal(t, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", path)
			continue
		}
		verbs[verb] = true
		assert.True(t, strings.HasPrefix(path, "/api/v1/namespaces/"+fakeNamespace+"/pods"), "only pods in the pod's namespace: %s", r)
	}
	assert.Equal(t, map[string]bool{"get": true, "patch": true, "watch": true}, verbs, "RBAC verbs used: %v", fake.requests)
}

// A pod that may not patch pods, or whose hostname is not its pod name,
// fails the start with the reason, where upstream would retry registration
// in a busy loop forever.
func TestKubernetesStartCheck(t *testing.T) {
	podName, err := os.Hostname()
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		pod  string
		deny string
		want string
	}{
		{"no patch", podName, "patch", "the service account may not patch pods in namespace rsc (fake RBAC)"},
		{"no watch", podName, "watch", "may not watch pods"},
		{"hostname is not the pod name", "another-pod", "", "cannot get this pod rsc/" + podName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFakeAPIServer(tc.pod, "127.0.0.1")
			fake.deny[tc.deny] = true
			api := httptest.NewServer(fake)
			defer api.Close()
			p, err := New(Options{Provider: config.ProviderKubernetes, Name: "rsc-test", Host: "127.0.0.1", Port: 7000,
				Kubernetes: KubernetesOptions{RestConfig: &rest.Config{Host: api.URL}}, Logger: quiet})
			require.NoError(t, err)
			kp := p.(*kubernetesProvider)
			inNamespace(kp, fakeNamespace)
			err = kp.preflight()
			require.ErrorIs(t, err, ErrKubernetesAccess)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// inNamespace sets the namespace the provider would read from the service
// account mount, which a test process does not have. Upstream keeps it in
// an unexported field with no option, so the test writes it through reflect.
func inNamespace(p *kubernetesProvider, ns string) {
	p.namespace = ns
	f := reflect.ValueOf(p.Provider).Elem().FieldByName("namespace")
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetString(ns)
}
