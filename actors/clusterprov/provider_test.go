package clusterprov

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/redisstream/coordinator/config"
)

func TestNewSingleAndUnknown(t *testing.T) {
	for _, name := range []string{config.ProviderSingle, ""} {
		p, err := New(Options{Provider: name})
		require.ErrorIs(t, err, ErrSingle)
		assert.Nil(t, p)
	}
	_, err := New(Options{Provider: "k8s"})
	require.ErrorIs(t, err, ErrUnknownProvider)
	assert.Contains(t, err.Error(), `"k8s"`)
	assert.Contains(t, err.Error(), "kubernetes")
}

func TestNewTest(t *testing.T) {
	_, err := New(Options{Provider: config.ProviderTest})
	require.ErrorIs(t, err, ErrInvalidOptions)
	p, err := New(Options{Provider: config.ProviderTest, TestAgent: testAgent()})
	require.NoError(t, err)
	assert.IsType(t, &test.Provider{}, p)
}

func TestNewAutomanagedChecksItsOptions(t *testing.T) {
	_, err := New(Options{Provider: config.ProviderAutomanaged, ManagePort: 7001})
	require.ErrorIs(t, err, ErrInvalidOptions)
	_, err = New(Options{Provider: config.ProviderAutomanaged, Seeds: []string{"127.0.0.1:7001"}})
	require.ErrorIs(t, err, ErrInvalidOptions)
	p, err := New(Options{Provider: config.ProviderAutomanaged, Host: "127.0.0.1", ManagePort: 7001, Seeds: []string{"127.0.0.1:7001"}})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:7001", p.(*automanagedProvider).bind, "the health endpoint binds cluster.host, not 0.0.0.0")
}

// Building the kubernetes provider contacts nothing: the API server given
// here counts requests, and none arrives.
func TestNewKubernetesMakesNoRequest(t *testing.T) {
	var requests atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, "no API server here", http.StatusServiceUnavailable)
	}))
	defer api.Close()

	p, err := New(Options{Provider: config.ProviderKubernetes, Name: "rsc", Host: "0.0.0.0", AdvertiseHost: "10.244.0.9", Port: 7000,
		Kubernetes: KubernetesOptions{RestConfig: &rest.Config{Host: api.URL}}})
	require.NoError(t, err)
	assert.IsType(t, &kubernetesProvider{}, p)
	assert.Zero(t, requests.Load())
}

// Outside a pod (no KUBERNETES_SERVICE_HOST) the in-cluster config fails at
// New, with a reason, instead of a provider retrying forever.
func TestNewKubernetesOutsideAPod(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	_, err := New(Options{Provider: config.ProviderKubernetes, Name: "rsc", Port: 7000})
	require.ErrorIs(t, err, ErrNotInKubernetes)
	assert.Contains(t, err.Error(), "KUBERNETES_SERVICE_HOST")
}

func TestFromConfig(t *testing.T) {
	cfg := config.Default().Cluster
	cfg.Provider, cfg.Host, cfg.AdvertiseHost, cfg.Port, cfg.ManagePort = config.ProviderAutomanaged, "0.0.0.0", "rsc-1", 7000, 7001
	cfg.Seeds = []string{"rsc-1:7001", "rsc-2:7001"}
	o := FromConfig(cfg, nil)
	assert.Equal(t, Options{Provider: "automanaged", Name: "rsc", Host: "0.0.0.0", AdvertiseHost: "rsc-1", Port: 7000, ManagePort: 7001,
		Seeds: []string{"rsc-1:7001", "rsc-2:7001"}}, o)
	o.Seeds[0] = "x"
	assert.Equal(t, "rsc-1:7001", cfg.Seeds[0], "FromConfig copies the seeds")
}

func TestRemoteConfig(t *testing.T) {
	rc := RemoteConfig(Options{Host: "0.0.0.0", AdvertiseHost: "10.244.0.9", Port: 7000})
	assert.Equal(t, "0.0.0.0:7000", rc.Address(), "binds host:port")
	assert.Equal(t, "10.244.0.9:7000", rc.AdvertisedHost, "advertises host:port: protoactor uses it verbatim as the address")

	rc = RemoteConfig(Options{Host: "10.0.0.5", Port: 7000})
	assert.Equal(t, "10.0.0.5:7000", rc.AdvertisedHost, "no advertise-host: the bind host")

	rc = RemoteConfig(Options{Host: "127.0.0.1"})
	assert.Equal(t, "127.0.0.1:0", rc.Address())
	assert.Empty(t, rc.AdvertisedHost, "port 0: the listener's own address is advertised")
}

func testAgent() *test.InMemAgent { return test.NewInMemAgent() }
