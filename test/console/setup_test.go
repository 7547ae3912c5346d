package console

import (
	"context"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/host"
	"github.com/redisstream/coordinator/api"
	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence/redisstore"
	"github.com/redisstream/coordinator/test/harness"
)

// Users of the coordinator under test: the console logs in as the READ one;
// the test creates the stream as the WRITE one.
const (
	viewer, viewerPass = "viewer", "viewer-pass"
	admin, adminPass   = "admin", "admin-pass"
)

// coordinator is one in-process node (actor host + Redis store) served by two
// fiber fronts: one with authentication on, one with it off.
type coordinator struct {
	secured, open string // base URLs
	redis         *redistest.Server
}

// Leases and rebalance timeouts are long: the test beats by hand, and nothing
// may expire while it looks at the page.
var rules = model.Config{HeartbeatInterval: time.Second, LeaseTTL: 30 * time.Second,
	RebalanceTimeout: 30 * time.Second, Retention: time.Hour,
	StaticSessionTimeout: 30 * time.Second}

func startCoordinator(t *testing.T) *coordinator {
	t.Helper()
	r := redistest.Start(t)
	store, err := redisstore.New(r.Client(), redisstore.Options{})
	require.NoError(t, err)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := host.New(host.Options{Store: store, Provisioner: redisstore.NewProvisioner(r.Client()), NodeID: "console-test",
		Rules: rules, TrustEmptyStore: true, Logger: logger})
	require.NoError(t, h.Start(context.Background()))
	t.Cleanup(h.Stop)
	secured := api.Config{CoordinatorID: "console-test", Logger: logger, Auth: config.Auth{
		TokenSecret: "console-test-secret-0123456789",
		Users: []config.User{
			{Username: viewer, Password: viewerPass, Roles: []string{config.RoleRead}},
			{Username: admin, Password: adminPass, Roles: []string{config.RoleWrite}},
		},
	}}
	return &coordinator{
		redis:   r,
		secured: serve(t, api.New(secured, h.Service())),
		open:    serve(t, api.New(api.Config{CoordinatorID: "console-test", Logger: logger}, h.Service())),
	}
}

func serve(t *testing.T, srv *api.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String()
}

// chromiumPath finds the browser: RSC_CHROMIUM, then Debian's names. Absent,
// the test skips with a message, or fails under CI=true (CI installs it).
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("RSC_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium not found on PATH (nor RSC_CHROMIUM): install it with `bash test/ensure-chromium.sh`"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI must have it: .ci/run installs it)")
	}
	t.Skip(msg + "; skipping the console browser test")
	return ""
}

// browser is one headless Chromium tab. It records the page's script errors
// (exceptions, console.error, security violations such as a refused
// resource): the test fails if there are any.
type browser struct {
	t   *testing.T
	ctx context.Context

	mu     sync.Mutex
	errors []string
}

func newBrowser(t *testing.T, chromium string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-proxy-server", true), // loopback only
		chromedp.WindowSize(windowWidth, 1000), // a laptop window: the tables must fit it
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx}
	// The first run starts the browser and must not carry a timeout (it would
	// stop the browser with it): bound the start from outside instead.
	begin := time.Now()
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	select {
	case err := <-started:
		require.NoError(t, err, "start chromium")
	case <-time.After(time.Minute):
		cancel()
		t.Fatal("chromium did not start within a minute")
	}
	t.Logf("chromium started in %s", time.Since(begin).Round(time.Millisecond))
	go b.collectErrors(chromedp.Console(ctx))
	return b
}

// collectErrors keeps the page's exceptions and error messages. Network
// entries are left out: they are answers the page expects and handles (401
// before login, 404 from a route this server may not have).
func (b *browser) collectErrors(msgs iter.Seq2[chromedp.ConsoleMessage, error]) {
	for m, err := range msgs {
		if err != nil {
			return
		}
		if m.IsException() || (m.Type == chromedp.ConsoleError && m.Source != "network") {
			b.mu.Lock()
			b.errors = append(b.errors, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
			b.mu.Unlock()
		}
	}
}

func (b *browser) run(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	require.NoError(b.t, chromedp.Do(ctx, actions...))
}

// eval runs a JavaScript expression in the page and decodes its value.
func eval[T any](b *browser, js string) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](js))
}

// waitFor evaluates js until check accepts its value, for up to 20 s (the page
// polls once a second; the margin is for a loaded CI machine). It fails the
// test with the last value seen and a screenshot.
func waitFor[T any](b *browser, what, js string, check func(T) bool) T {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var (
		v   T
		err error
	)
	for time.Now().Before(deadline) {
		var cur T
		if cur, err = eval[T](b, js); err == nil {
			v = cur
			if check(cur) {
				return cur
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.screenshot("failed-" + strings.ReplaceAll(what, " ", "-"))
	b.t.Fatalf("page never showed %s: last value %+v (error %v)", what, v, err)
	return v
}

func (b *browser) scriptErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

// windowWidth is the browser window's width in CSS pixels.
const windowWidth = 1280

// artifacts is where screenshots go: $RSC_ARTIFACTS/console when set (CI
// keeps that directory), test/console/artifacts otherwise (gitignored).
func artifacts(t *testing.T) string {
	dir := filepath.Join(harness.RepoRoot(), "test", "console", "artifacts")
	if a := os.Getenv("RSC_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "console")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// screenshot saves the whole page as artifacts/NAME.png and logs the path.
func (b *browser) screenshot(name string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	p := filepath.Join(artifacts(b.t), name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	b.t.Logf("screenshot: %s", p)
	return p
}
