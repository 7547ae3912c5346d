//go:build linux

package recipes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

const recipeMarker = "<!-- test/recipes runs this block as it is written here (ports swapped for free ones) -->"

// recipeBlock is the fenced block that follows the marker in OPERATIONS.md.
func recipeBlock(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "docs", "OPERATIONS.md"))
	require.NoError(t, err)
	text := string(doc)
	i := strings.Index(text, recipeMarker)
	require.GreaterOrEqual(t, i, 0, "docs/OPERATIONS.md lost the loopback cluster recipe's marker")
	rest := text[i+len(recipeMarker):]
	start := strings.Index(rest, "```sh\n")
	require.GreaterOrEqual(t, start, 0)
	rest = rest[start+len("```sh\n"):]
	end := strings.Index(rest, "```")
	require.Greater(t, end, 0)
	return rest[:end]
}

// withFreePorts replaces every port of the recipe (a 4-digit number from
// 6000 up) by a free one, the same number by the same port throughout.
func withFreePorts(t *testing.T, block string) (string, map[string]string) {
	t.Helper()
	ports := map[string]string{}
	out := regexp.MustCompile(`\b[6-9]\d{3}\b`).ReplaceAllStringFunc(block, func(p string) string {
		if _, ok := ports[p]; !ok {
			port, err := harness.FreePort()
			require.NoError(t, err)
			ports[p] = strconv.Itoa(port)
		}
		return ports[p]
	})
	return out, ports
}

func environWithoutRSC() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RSC_") {
			out = append(out, kv)
		}
	}
	return out
}

// The loopback 3-node recipe of docs/OPERATIONS.md, run as written: three
// automanaged nodes and one redis-server come up and see each other.
func TestOperationsLoopbackClusterRecipe(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "redis-server"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the recipe needs %s on PATH: %v", tool, err)
		}
	}
	block, ports := withFreePorts(t, recipeBlock(t))
	require.Len(t, ports, 10, "the recipe uses 10 ports (Redis, 3 × HTTP, cluster and manage): %v", ports)
	bin, err := harness.Binary("coordinator")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.Symlink(bin, filepath.Join(dir, "coordinator")))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out bytes.Buffer
	sh := exec.CommandContext(ctx, "bash", "-c", block)
	sh.Dir, sh.Env, sh.Stdout, sh.Stderr = dir, environWithoutRSC(), &out, &out
	// Everything the recipe starts stays in the shell's process group (no
	// job control in a script): one kill stops it all, even on failure.
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, sh.Start())
	pgid := sh.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if t.Failed() {
			for _, f := range []string{"redis.log", "node-1.log", "node-2.log", "node-3.log"} {
				b, _ := os.ReadFile(filepath.Join(dir, f))
				t.Logf("%s:\n%s", f, lastLines(string(b), 40))
			}
		}
	})
	err = sh.Wait()
	require.NoError(t, err, "the recipe failed:\n%s", out.String())
	require.Contains(t, out.String(), `"status":"UP"`, "the recipe's health check answers UP")

	urls := []string{"http://127.0.0.1:" + ports["8081"], "http://127.0.0.1:" + ports["8082"], "http://127.0.0.1:" + ports["8083"]}
	require.Eventually(t, func() bool {
		for _, u := range urls {
			if n, err := clusterMembers(u); err != nil || n != 3 {
				return false
			}
		}
		return true
	}, 20*time.Second, 100*time.Millisecond, "every node sees the three")
}

func clusterMembers(base string) (int, error) {
	resp, err := http.Get(base + "/coord/v1/monitoring/health")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var h protocol.HealthResponse
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return 0, err
	}
	if h.Cluster == nil {
		return 0, fmt.Errorf("%s: no cluster view", base)
	}
	return len(h.Cluster.Members), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
