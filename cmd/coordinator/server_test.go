package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// repoRoot is the repository root (two levels up from this package).
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// buildCoordinator builds the binary with a stamped version, as `make build`
// does, but with the toolchain's default settings (cgo as configured, no
// -trimpath) and the test binary's race flag: those of `go vet -race` and
// the race pass of `make test`, whose compiled packages it reuses.
// CGO_ENABLED=0, -trimpath or a plain build under -race would compile the
// standard library and every dependency once more (about 3 CPU-minutes with
// an empty build cache); the release build's flags are checked in
// release_test.go.
func buildCoordinator(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "coordinator")
	args := append(append([]string{"build"}, buildFlags...), "-ldflags", "-X main.version=v9.9.9-test", "-o", bin, ".")
	cmd := exec.Command("go", args...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuf) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// metricNames extracts every rsc_* metric name an expression file refers to,
// histogram suffixes removed.
func metricNames(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]bool{}
	for _, n := range regexp.MustCompile(`\brsc_[a-z0-9_]+`).FindAllString(string(data), -1) {
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			if strings.HasSuffix(n, "_seconds"+suf) {
				n = strings.TrimSuffix(n, suf)
			}
		}
		if n == "rsc_coordinator" { // the dashboard's uid, not a metric
			continue
		}
		out[n] = true
	}
	return out
}

// TestRealServer starts the built coordinator (embedded Redis), drives a
// stream and a member through it, and checks: --version; that every metric
// the Grafana dashboard and the alert rules reference is exposed, on the
// unauthenticated metrics.addr listener; the OpenAPI document and viewer;
// and that SIGTERM drains and exits 0.
func TestRealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the coordinator")
	}
	bin := buildCoordinator(t)
	out, err := exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err)
	require.Equal(t, "coordinator v9.9.9-test\n", string(out))

	cmd := exec.Command(bin, "--http.addr=127.0.0.1:0", "--metrics.addr=127.0.0.1:0",
		"--metrics.sample-interval=200ms", "--shutdown.timeout=20s", "--shutdown.drain-delay=3s")
	cmd.Env = append(os.Environ(), "RSC_REDIS_ADDRS=")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	logs := &lockedBuf{}
	cmd.Stderr = logs
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})

	var api, metricsURL string
	sc := bufio.NewScanner(stdout)
	for (api == "" || metricsURL == "") && sc.Scan() {
		line := sc.Text()
		if a, ok := strings.CutPrefix(line, "coordinator listening on "); ok {
			api = a
		}
		if m, ok := strings.CutPrefix(line, "coordinator metrics on "); ok {
			metricsURL = m
		}
	}
	require.NotEmpty(t, api, logs.String())
	require.NotEmpty(t, metricsURL, logs.String())
	go func() { _, _ = io.Copy(io.Discard, stdout) }()

	post := func(path, body string) int {
		resp, err := http.Post(api+path, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	require.Equal(t, 201, post("/coord/v1/streams/orders", `{"initialShardCount":2,"requestedBy":"test"}`))
	hb := `{"protocolVersion":1,"requestId":"r1","memberId":"m-1","memberEpoch":0,"metadataVersion":0,"runtimeConsumerCapacity":{"runtimeMaxConcurrency":1,"availableConcurrency":1}}`
	require.Equal(t, 200, post("/coord/v1/streams/orders/groups/g/members/m-1/heartbeat", hb))

	want := metricNames(t, filepath.Join(repoRoot(t), "docs", "grafana", "coordinator.json"))
	for n := range metricNames(t, filepath.Join(repoRoot(t), "docs", "prometheus", "alerts.yaml")) {
		want[n] = true
	}
	require.GreaterOrEqual(t, len(want), 10)
	var missing []string
	deadline := time.Now().Add(30 * time.Second) // the sampler runs every 200ms; generous for a loaded machine
	for {
		resp, err := http.Get(metricsURL) // no credentials: metrics.addr is unauthenticated
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode)
		missing = missing[:0]
		for n := range want {
			if !strings.Contains(string(body), "# TYPE "+n+" ") {
				missing = append(missing, n)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.Empty(t, missing, "metrics referenced by docs/grafana or docs/prometheus but not exposed")
	// Only /metrics is served there.
	resp, err := http.Get(strings.TrimSuffix(metricsURL, "/metrics") + "/coord/v1/monitoring/groups")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 404, resp.StatusCode)

	resp, err = http.Get(api + "/coord/v1/openapi.json")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
	resp.Body.Close()
	require.Equal(t, "3.1.0", doc["openapi"])

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	// During shutdown.drain-delay the port stays open: readiness is 503
	// and new work is refused with 503 SHUTTING_DOWN, liveness stays 200.
	var ready int
	for i := 0; i < 200 && ready != 503; i++ {
		r, err := http.Get(api + "/coord/v1/monitoring/ready")
		require.NoError(t, err, "the port must stay open during the drain delay")
		ready = r.StatusCode
		r.Body.Close()
		if ready != 503 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	require.Equal(t, 503, ready)
	r, err := http.Post(api+"/coord/v1/streams/orders/groups/g/members/m-1/heartbeat", "application/json", strings.NewReader(hb))
	require.NoError(t, err)
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	require.Equal(t, 503, r.StatusCode)
	require.Contains(t, string(body), "SHUTTING_DOWN")
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	r, err = http.Get(api + "/coord/v1/monitoring/live")
	require.NoError(t, err)
	r.Body.Close()
	require.Equal(t, 200, r.StatusCode)
	select {
	case err := <-exited:
		require.NoError(t, err, "exit status after SIGTERM; logs:\n%s", logs.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("no exit within 60s of SIGTERM (shutdown.timeout 20s); logs:\n%s", logs.String())
	}
	require.Contains(t, logs.String(), "draining")
	require.Contains(t, logs.String(), "shut down")
	require.Contains(t, logs.String(), "msg=audit")
}
