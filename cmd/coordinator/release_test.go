package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/redisstream/coordinator/config"
)

// Docker cannot run here, so the release artefacts are checked by reading
// them: every path, build stage, binary, flag and configuration key the
// Dockerfile and the compose files name must exist.

// dockerStages parses the Dockerfile: stage name → the binaries its COPY
// lines put in /usr/local/bin; and the go build outputs and packages.
type dockerfile struct {
	stages   map[string][]string // stage → /usr/local/bin binaries
	outputs  map[string]string   // /out/name → package path
	lastName string
}

func parseDockerfile(t *testing.T, root string) dockerfile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	require.NoError(t, err)
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	d := dockerfile{stages: map[string][]string{}, outputs: map[string]string{}}
	from := regexp.MustCompile(`(?m)^FROM\s+(\S+)(?:\s+AS\s+(\S+))?`)
	// "go build -C membersdk ... ./example" builds in the SDK's module.
	build := regexp.MustCompile(`go build (?:-C (\S+) )?[^&]*?-o (/out/\S+) (\./\S+)`)
	cur := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if m := from.FindStringSubmatch(line); m != nil {
			cur = m[2]
			d.lastName = cur
			d.stages[cur] = nil
			continue
		}
		for _, m := range build.FindAllStringSubmatch(line, -1) {
			d.outputs[m[2]] = filepath.Join(m[1], m[3])
		}
		if strings.HasPrefix(line, "COPY --from=build ") {
			f := strings.Fields(line)
			for _, src := range f[2 : len(f)-1] {
				require.Contains(t, d.outputs, src, "Dockerfile copies %s, which no go build produces", src)
				d.stages[cur] = append(d.stages[cur], "/usr/local/bin/"+filepath.Base(src))
			}
		}
		if strings.HasPrefix(line, "ENTRYPOINT ") {
			bin := strings.Trim(strings.Fields(strings.Trim(strings.TrimPrefix(line, "ENTRYPOINT "), "[]"))[0], `",`)
			require.Contains(t, d.stages[cur], bin, "stage %s: ENTRYPOINT %s is not copied into it", cur, bin)
		}
	}
	for out, pkg := range d.outputs {
		main, err := os.ReadFile(filepath.Join(root, pkg, "main.go"))
		require.NoError(t, err, "Dockerfile builds %s from %s", out, pkg)
		require.Contains(t, string(main), "package main", pkg)
	}
	require.Equal(t, "coordinator", d.lastName, "the default (last) stage is the coordinator image")
	return d
}

func TestDockerfile(t *testing.T) {
	d := parseDockerfile(t, repoRoot(t))
	require.Contains(t, d.stages["coordinator"], "/usr/local/bin/coordinator")
	require.Contains(t, d.stages["coordinator"], "/usr/local/bin/streamctl")
	require.Contains(t, d.stages["member"], "/usr/local/bin/member-example")
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "Dockerfile"))
	require.NoError(t, err)
	require.Contains(t, string(data), "CGO_ENABLED=0", "static binaries")
	require.Contains(t, string(data), "-X main.version=", "version stamped")
	require.Regexp(t, `(?m)^FROM gcr.io/distroless/static`, string(data))
}

type composeService struct {
	Build *struct {
		Context    string `yaml:"context"`
		Dockerfile string `yaml:"dockerfile"`
		Target     string `yaml:"target"`
	} `yaml:"build"`
	Image       string            `yaml:"image"`
	Command     []string          `yaml:"command"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Healthcheck *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
}

// externalImages are the public images the compose files may pull.
var externalImages = regexp.MustCompile(`^(redis:7\.\d+|prom/prometheus:v\d+\.\d+\.\d+)$`)

func TestDemoCompose(t *testing.T) {
	root := repoRoot(t)
	dir := filepath.Join(root, "docs", "deploy")
	d := parseDockerfile(t, root)
	data, err := os.ReadFile(filepath.Join(dir, "docker-compose.demo.yaml"))
	require.NoError(t, err)
	var f struct {
		Services map[string]composeService `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(data, &f))
	for _, name := range []string{"redis", "coordinator", "members", "prometheus"} {
		require.Contains(t, f.Services, name)
	}

	built := map[string]string{} // image → stage
	for name, s := range f.Services {
		if s.Build == nil {
			continue
		}
		ctx := filepath.Join(dir, s.Build.Context)
		require.FileExists(t, filepath.Join(ctx, s.Build.Dockerfile), name)
		require.Equal(t, root, filepath.Clean(ctx), "%s: build context is the repository root", name)
		require.Contains(t, d.stages, s.Build.Target, "%s: build target", name)
		built[s.Image] = s.Build.Target
	}
	for name, s := range f.Services {
		stage, ok := built[s.Image]
		if !ok {
			require.Regexp(t, externalImages, s.Image, "%s: image neither built here nor a known public image", name)
		}
		for _, v := range s.Volumes {
			src := strings.Split(v, ":")[0]
			if strings.HasPrefix(src, ".") {
				require.FileExists(t, filepath.Join(dir, src), "%s: volume %s", name, v)
			}
		}
		if len(s.Entrypoint) > 0 {
			require.Contains(t, d.stages[stage], s.Entrypoint[0], "%s: entrypoint", name)
		}
		if s.Healthcheck != nil && len(s.Healthcheck.Test) > 1 && s.Healthcheck.Test[0] == "CMD" {
			require.Contains(t, d.stages[stage], s.Healthcheck.Test[1], "%s: healthcheck binary", name)
		}
	}

	// The coordinator's flags and environment load and validate.
	c := f.Services["coordinator"]
	var env []string
	for k, v := range c.Environment {
		env = append(env, k+"="+v)
	}
	cfg, _, err := config.LoadWithWarnings(c.Command, env)
	require.NoError(t, err, "the demo coordinator's configuration")
	_, metricsPort, _ := strings.Cut(cfg.Metrics.Addr, ":")
	require.NotEmpty(t, metricsPort)

	// The members' flags exist in membersdk/example.
	example, err := os.ReadFile(filepath.Join(root, "membersdk", "example", "main.go"))
	require.NoError(t, err)
	for _, a := range f.Services["members"].Command {
		if name, ok := strings.CutPrefix(a, "-"); ok {
			require.Contains(t, string(example), `flag.`, "membersdk/example uses flag")
			require.Regexp(t, regexp.MustCompile(`flag\.\w+\((\w+, )?"`+regexp.QuoteMeta(name)+`"`), string(example), "members: flag -%s", name)
		}
	}

	// Prometheus scrapes the coordinator's metrics listener and loads the
	// shipped rules.
	pdata, err := os.ReadFile(filepath.Join(dir, "prometheus.yml"))
	require.NoError(t, err)
	var prom struct {
		RuleFiles     []string `yaml:"rule_files"`
		ScrapeConfigs []struct {
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	require.NoError(t, yaml.Unmarshal(pdata, &prom))
	require.Equal(t, []string{"coordinator:" + metricsPort}, prom.ScrapeConfigs[0].StaticConfigs[0].Targets)
	mounted := map[string]string{}
	for _, v := range f.Services["prometheus"].Volumes {
		parts := strings.Split(v, ":")
		mounted[parts[1]] = parts[0]
	}
	for _, rf := range prom.RuleFiles {
		src, ok := mounted[rf]
		require.True(t, ok, "rule file %s is not mounted", rf)
		require.FileExists(t, filepath.Join(dir, src))
	}
	require.Equal(t, "../prometheus/alerts.yaml", mounted["/etc/prometheus/alerts.yaml"])
}

// TestDemoComposeCreatesStream runs the compose file's create-stream command
// with the real streamctl against a recording server: it must create the
// stream the members consume.
func TestDemoComposeCreatesStream(t *testing.T) {
	if testing.Short() {
		t.Skip("builds streamctl")
	}
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "docs", "deploy", "docker-compose.demo.yaml"))
	require.NoError(t, err)
	var f struct {
		Services map[string]composeService `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(data, &f))
	cs := f.Services["create-stream"]
	require.Equal(t, []string{"/usr/local/bin/streamctl"}, cs.Entrypoint)

	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"streamPrefix":"orders","shardCount":4,"metadataVersion":1}`))
	}))
	defer srv.Close()

	bin := filepath.Join(t.TempDir(), "streamctl")
	out, err := exec.Command("go", append(append([]string{"build"}, buildFlags...), "-o", bin, filepath.Join(root, "cmd", "streamctl"))...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	args := append([]string(nil), cs.Command...)
	for i, a := range args {
		if a == "http://coordinator:8080" {
			args[i] = srv.URL
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"HOME=" + t.TempDir()}
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "streamctl %v: %s", args, out)
	stream := ""
	for i, a := range f.Services["members"].Command {
		if a == "-stream" {
			stream = f.Services["members"].Command[i+1]
		}
	}
	mu.Lock()
	defer mu.Unlock()
	require.Contains(t, got, "POST /coord/v1/streams/"+stream)
}

// TestAlertRules: the alert rules parse, each has an expression, a
// severity, a summary and a runbook link to an entry of docs/METRICS.md;
// the dashboard is JSON whose every panel has a query.
func TestAlertRules(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "docs", "prometheus", "alerts.yaml"))
	require.NoError(t, err)
	var rules struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	require.NoError(t, yaml.Unmarshal(data, &rules))
	doc, err := os.ReadFile(filepath.Join(root, "docs", "METRICS.md"))
	require.NoError(t, err)
	n := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			n++
			require.NotEmpty(t, r.Alert)
			require.NotEmpty(t, r.Expr, r.Alert)
			require.Contains(t, []string{"page", "warn"}, r.Labels["severity"], r.Alert)
			require.NotEmpty(t, r.Annotations["summary"], r.Alert)
			anchor, ok := strings.CutPrefix(r.Annotations["runbook"], "docs/METRICS.md#")
			require.True(t, ok, "%s: runbook must link into docs/METRICS.md", r.Alert)
			require.Contains(t, string(doc), `<a id="`+anchor+`"></a>`, r.Alert)
			require.Contains(t, string(doc), "**`"+r.Alert+"`**", "%s: METRICS.md says what to do when it fires", r.Alert)
		}
	}
	// The list: unowned shards, fencing rate, expiry rate,
	// heartbeat p99, persistence failures, lag per group.
	for _, a := range []string{"RSCUnownedShards", "RSCFencingRateHigh", "RSCLeaseExpiryRateHigh", "RSCHeartbeatLatencyHigh", "RSCPersistenceFailures", "RSCGroupLagHigh"} {
		require.Contains(t, string(data), "alert: "+a+"\n")
	}
	require.GreaterOrEqual(t, n, 6)

	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	data, err = os.ReadFile(filepath.Join(root, "docs", "grafana", "coordinator.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &dash))
	require.NotEmpty(t, dash.UID)
	require.GreaterOrEqual(t, len(dash.Panels), 8)
	for _, p := range dash.Panels {
		require.NotEmpty(t, p.Targets, p.Title)
		for _, tg := range p.Targets {
			require.Contains(t, tg.Expr, "rsc_", p.Title)
		}
	}
}
