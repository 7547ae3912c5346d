package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The deployment examples under docs/deploy are configurations too: every
// environment variable they set must be a key, and each node's environment
// must load and validate as it is written.

const deployDir = "../docs/deploy/"

// placeholderUsers stands for the users a secret or shell variable supplies.
const placeholderUsers = `[{username: admin, password: pw, roles: [ADMIN]}, {username: member, password: pw, roles: [MEMBER]}]`

// composeVar matches docker compose's ${NAME:?message} interpolation.
var composeVar = regexp.MustCompile(`\$\{([A-Z0-9_]+)(:?[?-][^}]*)?\}`)

func loadYAMLDocs(t *testing.T, name string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(deployDir + name)
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var docs []map[string]any
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, name)
		if d != nil {
			docs = append(docs, d)
		}
	}
	return docs
}

func field(t *testing.T, v any, path ...string) any {
	t.Helper()
	for _, p := range path {
		m, ok := v.(map[string]any)
		require.True(t, ok, "%v: not a mapping at %q", path, p)
		v = m[p]
	}
	return v
}

// loadNodeEnv checks that every variable names a key, then loads it.
func loadNodeEnv(t *testing.T, where string, env map[string]string) Config {
	t.Helper()
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	var environ []string
	for _, k := range names {
		_, known := byEnv[k]
		assert.True(t, known, "%s sets %s, which is not a configuration key%s", where, k, didYouMean(suggest(k, knownEnvs)))
		environ = append(environ, k+"="+env[k])
	}
	cfg, warnings, err := LoadWithWarnings(nil, environ)
	require.NoError(t, err, where)
	assert.Empty(t, warnings, where)
	return cfg
}

func TestDeployDockerCompose(t *testing.T) {
	docs := loadYAMLDocs(t, "docker-compose.yaml")
	require.Len(t, docs, 1)
	services := field(t, docs[0], "services").(map[string]any)
	var seeds [][]string
	var own []string
	for _, name := range []string{"rsc-1", "rsc-2", "rsc-3"} {
		svc := services[name]
		require.NotNil(t, svc, "service %s", name)
		assert.NotEmpty(t, field(t, svc, "stop_grace_period"), "%s: SIGTERM needs time to hand groups over", name)
		env := map[string]string{}
		for k, v := range field(t, svc, "environment").(map[string]any) {
			s := fmt.Sprint(v)
			s = composeVar.ReplaceAllStringFunc(s, func(m string) string {
				if strings.Contains(m, "TOKEN_SECRET") {
					return "placeholder-secret-0123456789abcdef"
				}
				return "placeholder"
			})
			env[k] = s
		}
		cfg := loadNodeEnv(t, "docker-compose.yaml service "+name, env)
		assert.Equal(t, ProviderAutomanaged, cfg.Cluster.Provider)
		assert.Equal(t, name, cfg.Cluster.NodeID)
		assert.Len(t, cfg.Auth.Users, 2)
		for _, p := range field(t, svc, "ports").([]any) {
			assert.NotContains(t, fmt.Sprint(p), fmt.Sprint(cfg.Cluster.Port), "%s publishes the unauthenticated cluster port", name)
		}
		seeds = append(seeds, cfg.Cluster.Seeds)
		own = append(own, cfg.Cluster.OwnSeed())
	}
	for i := range seeds {
		assert.ElementsMatch(t, own, seeds[i], "node %d: the seeds are exactly the nodes", i+1)
	}
}

func TestDeployKubernetes(t *testing.T) {
	byKind := map[string]map[string]any{}
	for _, d := range loadYAMLDocs(t, "kubernetes.yaml") {
		kind := fmt.Sprint(d["kind"])
		require.NotContains(t, byKind, kind, "one %s", kind)
		byKind[kind] = d
	}
	for _, kind := range []string{"ServiceAccount", "Role", "RoleBinding", "Service", "Deployment"} {
		require.Contains(t, byKind, kind)
	}

	// RBAC: exactly what protoactor's k8s provider calls.
	rules := field(t, byKind["Role"], "rules").([]any)
	require.Len(t, rules, 1)
	assert.Equal(t, []any{""}, field(t, rules[0], "apiGroups"))
	assert.Equal(t, []any{"pods"}, field(t, rules[0], "resources"))
	assert.ElementsMatch(t, []any{"get", "patch", "watch"}, field(t, rules[0], "verbs"))
	sa := field(t, byKind["ServiceAccount"], "metadata", "name")
	assert.Equal(t, sa, field(t, byKind["RoleBinding"], "subjects").([]any)[0].(map[string]any)["name"])
	assert.Equal(t, field(t, byKind["Role"], "metadata", "name"), field(t, byKind["RoleBinding"], "roleRef", "name"))

	assert.Equal(t, "None", field(t, byKind["Service"], "spec", "clusterIP"), "headless Service")

	dep := byKind["Deployment"]
	assert.Equal(t, 3, field(t, dep, "spec", "replicas"))
	pod := field(t, dep, "spec", "template", "spec")
	assert.Equal(t, sa, field(t, pod, "serviceAccountName"))
	assert.Equal(t, false, field(t, pod, "enableServiceLinks"))
	assert.Greater(t, field(t, pod, "terminationGracePeriodSeconds"), int(Default().Shutdown.Timeout.Seconds()), "the grace period must outlast shutdown.timeout")
	containers := field(t, pod, "containers").([]any)
	require.Len(t, containers, 1)
	c := containers[0]
	assert.Equal(t, "/coord/v1/monitoring/ready", field(t, c, "readinessProbe", "httpGet", "path"))
	assert.Equal(t, "/coord/v1/monitoring/live", field(t, c, "livenessProbe", "httpGet", "path"))

	env := map[string]string{}
	var fieldRefs = map[string]string{}
	for _, e := range field(t, c, "env").([]any) {
		name := fmt.Sprint(field(t, e, "name"))
		if v, ok := e.(map[string]any)["value"]; ok {
			env[name] = fmt.Sprint(v)
			continue
		}
		from := field(t, e, "valueFrom").(map[string]any)
		switch {
		case from["fieldRef"] != nil:
			path := fmt.Sprint(field(t, from, "fieldRef", "fieldPath"))
			fieldRefs[name] = path
			env[name] = map[string]string{"status.podIP": "10.244.1.7", "metadata.name": "rsc-coordinator-5d8c7b9f4-x2x7q"}[path]
		case from["secretKeyRef"] != nil:
			env[name] = map[string]string{"token-secret": "placeholder-secret-0123456789abcdef", "users": placeholderUsers}[fmt.Sprint(field(t, from, "secretKeyRef", "key"))]
		}
		require.NotEmpty(t, env[name], "env %s: unknown value source", name)
	}
	assert.Equal(t, "status.podIP", fieldRefs["RSC_CLUSTER_ADVERTISE_HOST"], "the pod IP through the downward API")
	cfg := loadNodeEnv(t, "kubernetes.yaml Deployment", env)
	assert.Equal(t, ProviderKubernetes, cfg.Cluster.Provider)
	assert.Equal(t, "10.244.1.7", cfg.Cluster.AdvertiseHost)

	ports := map[string]int{}
	for _, p := range field(t, c, "ports").([]any) {
		ports[fmt.Sprint(field(t, p, "name"))] = field(t, p, "containerPort").(int)
	}
	assert.Equal(t, cfg.Cluster.Port, ports["cluster"], "containerPort cluster = RSC_CLUSTER_PORT")
	assert.True(t, cfg.Cluster.TLS.Enabled(), "mutual TLS between nodes")
	assert.True(t, cfg.HTTP.TLS.Enabled(), "HTTPS on the HTTP port")

	// The NetworkPolicy: the cluster port from coordinator pods only, the
	// HTTP port from this namespace and the labelled ones.
	np := byKind["NetworkPolicy"]
	require.NotNil(t, np, "a NetworkPolicy")
	podLabels := field(t, dep, "spec", "template", "metadata", "labels")
	assert.Equal(t, podLabels, field(t, np, "spec", "podSelector", "matchLabels"), "it selects the coordinator pods")
	byPort := map[int]any{}
	for _, rule := range field(t, np, "spec", "ingress").([]any) {
		for _, p := range field(t, rule, "ports").([]any) {
			byPort[field(t, p, "port").(int)] = field(t, rule, "from")
		}
	}
	require.Len(t, byPort, 2, "only the cluster and HTTP ports are admitted")
	assert.Equal(t, []any{map[string]any{"podSelector": map[string]any{"matchLabels": podLabels}}}, byPort[ports["cluster"]],
		"the cluster port admits coordinator pods only")
	assert.NotNil(t, byPort[ports["http"]], "the HTTP port is admitted")
	assert.Equal(t, "0.0.0.0:"+fmt.Sprint(ports["http"]), cfg.HTTP.Addr)
}

func TestDeploySystemdNode(t *testing.T) {
	secrets := []string{"RSC_AUTH_TOKEN_SECRET=placeholder-secret-0123456789abcdef", "RSC_AUTH_USERS=" + placeholderUsers, "RSC_REDIS_PASSWORD=pw"}
	cfg, warnings, err := LoadWithWarnings([]string{"--config", deployDir + "rsc-node-1.yaml"}, secrets)
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.Equal(t, ProviderAutomanaged, cfg.Cluster.Provider)

	// Nodes 2 and 3 differ only in host and node id, as the file says.
	b, err := os.ReadFile(deployDir + "rsc-node-1.yaml")
	require.NoError(t, err)
	for n := 2; n <= 3; n++ {
		s := strings.Replace(string(b), "host: 10.0.0.11", fmt.Sprintf("host: 10.0.0.1%d", n), 1)
		s = strings.Replace(s, "node-id: rsc-1", fmt.Sprintf("node-id: rsc-%d", n), 1)
		_, err := Load([]string{"--config", writeFile(t, s)}, secrets)
		require.NoError(t, err, "node %d", n)
	}

	unit, err := os.ReadFile(deployDir + "rsc-coordinator.service")
	require.NoError(t, err)
	assert.Contains(t, string(unit), "ExecStart=/usr/local/bin/coordinator --config /etc/rsc/rsc.yaml")
	assert.Contains(t, string(unit), "TimeoutStopSec=60")
}
