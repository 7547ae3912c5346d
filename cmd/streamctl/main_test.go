package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// fakeAPI is a loopback coordinator that answers canned bodies per
// "METHOD escaped-path" and records every request.
type fakeAPI struct {
	*httptest.Server
	mu      sync.Mutex
	routes  map[string]canned
	reqs    []seen
	matched func(r *http.Request) (canned, bool)
}

type canned struct {
	status int
	body   string
}

type seen struct {
	Method, Path, Query, Auth string
	Body                      map[string]any
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{routes: map[string]canned{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		f.mu.Lock()
		f.reqs = append(f.reqs, seen{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Auth: r.Header.Get("Authorization"), Body: body})
		c, ok := f.routes[r.Method+" "+r.URL.EscapedPath()]
		f.mu.Unlock()
		if !ok {
			c = canned{404, `{"status":"NOT_FOUND","errorCode":"NOT_FOUND","message":"no route ` + r.Method + " " + r.URL.EscapedPath() + `"}`}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(c.status)
		_, _ = w.Write([]byte(c.body))
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) on(method, path string, status int, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[method+" "+path] = canned{status, body}
}

func (f *fakeAPI) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

func (f *fakeAPI) last(t *testing.T) seen {
	t.Helper()
	r := f.requests()
	require.NotEmpty(t, r)
	return r[len(r)-1]
}

// isolate clears streamctl's environment (and the RSC_* names it still
// reads) and points the config file at a temporary path, so the developer's
// own settings never leak in.
func isolate(t *testing.T) string {
	t.Helper()
	for _, k := range []string{"RSC_URL", "RSC_USER", "RSC_PASSWORD", "RSC_TOKEN", "RSC_CONFIG",
		"STREAMCTL_URL", "STREAMCTL_USER", "STREAMCTL_PASSWORD", "STREAMCTL_TOKEN"} {
		t.Setenv(k, "")
	}
	path := filepath.Join(t.TempDir(), "streamctl", "config.yaml")
	t.Setenv("STREAMCTL_CONFIG", path)
	return path
}

type result struct {
	code   int
	stdout string
	stderr string
}

func ctl(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

func TestStreamCreateSendsBodyAndAuth(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("POST", "/coord/v1/streams/orders", 201, `{"streamPrefix":"orders","shardCount":8,"metadataVersion":1}`)
	// The legacy spelling ("stream create", flags after the arguments) still works.
	r := ctl(t, "--url", f.URL, "--user", "admin", "--password", "pw", "stream", "create", "orders", "--shards", "8", "--reason", "new")
	require.Equal(t, 0, r.code, r.stderr)
	s := f.last(t)
	require.Equal(t, "POST /coord/v1/streams/orders", s.Method+" "+s.Path)
	require.Equal(t, "Basic YWRtaW46cHc=", s.Auth)
	require.Equal(t, float64(8), s.Body["initialShardCount"])
	require.Equal(t, "new", s.Body["reason"])
	require.NotEmpty(t, s.Body["requestedBy"])
	require.Contains(t, r.stdout, "Stream orders created: 8 shards")

	r = ctl(t, "--url", f.URL, "-o", "json", "streams", "create", "orders")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, `"shardCount": 8`)
	require.NotContains(t, f.last(t).Body, "initialShardCount", "no --shards: the server's default")
}

func TestExitCodes(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("GET", "/coord/v1/monitoring/streams/orders/groups/g", 200, `{"streamPrefix":"orders","consumerGroup":"g","state":"STABLE","shardCount":4}`)
	f.on("GET", "/coord/v1/monitoring/streams/orders/groups/nope", 404, `{"status":"NOT_FOUND","errorCode":"GROUP_NOT_FOUND","message":"group orders/nope not found"}`)
	f.on("POST", "/coord/v1/streams/orders", 409, `{"status":"CONFLICT","errorCode":"STREAM_PREFIX_ALREADY_EXISTS","message":"stream orders already exists"}`)
	f.on("DELETE", "/coord/v1/streams/orders", 409, `{"status":"CONFLICT","errorCode":"STREAM_NOT_EMPTY","message":"stream orders still has group(s) billing: delete them first"}`)
	f.on("DELETE", "/coord/v1/streams/nope", 404, `{"status":"NOT_FOUND","errorCode":"STREAM_NOT_FOUND","message":"stream nope not found"}`)
	f.on("GET", "/coord/v1/monitoring/ready", 503, `{"status":"DOWN","errorCode":"UNAVAILABLE","message":"coordinator is not ready"}`)
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"group", "orders", "g"}, 0, ""},
		{[]string{"groups", "describe", "orders", "g"}, 0, ""},
		{[]string{"group", "orders", "nope"}, 3, "HTTP 404 GROUP_NOT_FOUND"}, // legacy spelling, 404
		{[]string{"offsets", "orders", "nope"}, 3, "HTTP 404 NOT_FOUND"},     // 404
		{[]string{"streams", "create", "orders"}, 1, "already exists"},       // 409
		{[]string{"health"}, 1, "not ready"},                                 // 503
		{[]string{"streams", "delete", "orders"}, 1, "delete them first (HTTP 409 STREAM_NOT_EMPTY)"},
		{[]string{"streams", "delete", "nope"}, 3, "HTTP 404 STREAM_NOT_FOUND"},
		{[]string{"bogus"}, 2, "unknown command"},
		{[]string{"streams", "bogus"}, 2, "unknown command"},
		{[]string{"groups", "describe", "orders"}, 2, "wants PREFIX GROUP"},
		{[]string{"members", "orders", "g", "extra"}, 2, "wants PREFIX GROUP"},
		{[]string{"--nope", "health"}, 2, "unknown flag"},
		{[]string{"-o", "yaml", "health"}, 2, "--output"},
		{[]string{"scale", "orders", "-3"}, 2, "the shard count must be 0 or more, got -3"},
		{[]string{"scale", "orders", "-1", "--reason", "x"}, 2, "the shard count must be 0 or more, got -1"},
		{[]string{"scale", "orders", "--", "-1"}, 2, "the shard count must be 0 or more, got -1"},
		{[]string{"scale", "orders", "2", "-z"}, 2, "unknown shorthand flag: 'z'"},
		{[]string{"scale", "orders", "x"}, 2, "COUNT"},
		{[]string{"messages", "orders", "x"}, 2, "SHARD"},
		{[]string{"watch", "orders", "g", "--interval", "1ms"}, 2, "--interval"},
		{[]string{"debug", "orders"}, 2, "PREFIX GROUP"},
	}
	for _, tc := range cases {
		r := ctl(t, append([]string{"--url", f.URL}, tc.args...)...)
		require.Equal(t, tc.code, r.code, "%v: %s", tc.args, r.stderr)
		if tc.err != "" {
			require.Contains(t, r.stderr, tc.err, tc.args)
		}
	}
	// A connection failure is a failure (1).
	r := ctl(t, "--url", "http://127.0.0.1:1", "health")
	require.Equal(t, 1, r.code)
}

func TestNamesAreEscapedAsOneSegment(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("GET", "/coord/v1/streams/my%20orders:v2/groups/a%2Fb/producer-routing", 200, `{"streamPrefix":"my orders:v2","shardCount":1,"shards":[]}`)
	r := ctl(t, "--url", f.URL, "routing", "my orders:v2", "a/b")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "/coord/v1/streams/my%20orders:v2/groups/a%2Fb/producer-routing", f.last(t).Path)
}

// Every command answers --help with its usage and exit 0.
func TestHelpOnEveryCommand(t *testing.T) {
	isolate(t)
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk((&app{}).rootCmd(), nil)
	require.Greater(t, len(paths), 20)
	for _, p := range paths {
		r := ctl(t, append(p, "--help")...)
		require.Equal(t, 0, r.code, "%v --help: %s", p, r.stderr)
		require.Contains(t, r.stdout, "Usage:", p)
	}
	r := ctl(t, "--version")
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stdout, "streamctl version "+version)
}

func TestSettingsPrecedence(t *testing.T) {
	path := isolate(t)
	fileSrv, envSrv, flagSrv := newFakeAPI(t), newFakeAPI(t), newFakeAPI(t)
	for _, f := range []*fakeAPI{fileSrv, envSrv, flagSrv} {
		f.on("GET", "/coord/v1/monitoring/groups", 200, `{"groups":[]}`)
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte("url: "+fileSrv.URL+"\ntoken: file-token\n"), 0o600))

	require.Equal(t, 0, ctl(t, "groups", "list").code)
	require.Equal(t, "Bearer file-token", fileSrv.last(t).Auth, "config file: URL and token")

	t.Setenv("STREAMCTL_URL", envSrv.URL)
	t.Setenv("STREAMCTL_USER", "env-user")
	t.Setenv("STREAMCTL_PASSWORD", "env-pw")
	require.Equal(t, 0, ctl(t, "groups").code)
	require.Equal(t, "Basic ZW52LXVzZXI6ZW52LXB3", envSrv.last(t).Auth, "env credentials beat the file's token")

	t.Setenv("STREAMCTL_TOKEN", "env-token")
	require.Equal(t, 0, ctl(t, "groups").code)
	require.Equal(t, "Bearer env-token", envSrv.last(t).Auth, "within a layer the token wins")

	require.Equal(t, 0, ctl(t, "--url", flagSrv.URL, "--user", "flag-user", "--password", "flag-pw", "groups").code)
	require.Equal(t, "Basic ZmxhZy11c2VyOmZsYWctcHc=", flagSrv.last(t).Auth, "flags beat the environment")

	// A config file others can read is used, with a warning.
	require.NoError(t, os.Chmod(path, 0o644))
	t.Setenv("STREAMCTL_URL", "")
	t.Setenv("STREAMCTL_TOKEN", "")
	t.Setenv("STREAMCTL_USER", "")
	r := ctl(t, "groups")
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stderr, "chmod 600")

	// A broken config file is a failure that names it.
	require.NoError(t, os.WriteFile(path, []byte("url: [\n"), 0o600))
	r = ctl(t, "groups")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, path)
}

func TestLoginStoresTokenWithMode0600(t *testing.T) {
	path := isolate(t)
	f := newFakeAPI(t)
	f.on("POST", "/coord/v1/auth/login", 200, `{"accessToken":"tok-123","tokenType":"Bearer","expiresAt":"2030-01-01T00:00:00Z","expiresInSeconds":604800,"roles":["READ","WRITE"]}`)
	f.on("GET", "/coord/v1/monitoring/groups", 200, `{"groups":[]}`)

	r := ctl(t, "--url", f.URL, "login")
	require.Equal(t, 2, r.code, "no credentials: usage")

	var out, errOut bytes.Buffer
	code := runContext(t.Context(), []string{"--url", f.URL, "--user", "ops", "login", "--password-stdin"}, strings.NewReader("s3cret\n"), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	login := f.last(t)
	require.Equal(t, "ops", login.Body["username"])
	require.Equal(t, "s3cret", login.Body["password"])
	require.Empty(t, login.Auth, "login sends no stale credentials")
	require.Contains(t, out.String(), "Logged in to "+f.URL+" as ops")

	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), "tok-123")
	require.Contains(t, string(b), f.URL)
	require.NotContains(t, string(b), "s3cret", "the password is not stored")

	// Later commands use the stored URL and token.
	r = ctl(t, "groups")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "Bearer tok-123", f.last(t).Auth)

	// A refused stored token says how to get a new one.
	f.on("GET", "/coord/v1/monitoring/groups", 401, `{"status":"UNAUTHORIZED","errorCode":"UNAUTHENTICATED","message":"token expired"}`)
	r = ctl(t, "groups")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "token expired — the token stored in "+path)
	require.Contains(t, r.stderr, "run 'streamctl login' again")

	// A failed login stores nothing new.
	f.on("POST", "/coord/v1/auth/login", 401, `{"status":"UNAUTHORIZED","errorCode":"UNAUTHENTICATED","message":"bad credentials"}`)
	r = ctl(t, "--user", "ops", "--password", "wrong", "login")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "bad credentials")
	b2, _ := os.ReadFile(path)
	require.Equal(t, b, b2)
}

// newPagedAPI answers the messages route with pages[from].
func newPagedAPI(t *testing.T, pages map[string]string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Query().Get("from")]
		if !ok {
			w.WriteHeader(400)
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
