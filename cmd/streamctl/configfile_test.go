package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/cmd/streamctl/internal/configfile"
	"github.com/redisstream/coordinator/config"
)

const loginOK = `{"accessToken":"tok-new","tokenType":"Bearer","expiresAt":"2030-01-01T00:00:00Z","expiresInSeconds":604800,"roles":["ADMIN"]}`

// login runs 'streamctl [pre...] login --user ops --password-stdin'.
func login(t *testing.T, pre ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	args := append(append([]string(nil), pre...), "--user", "ops", "login", "--password-stdin")
	code := runContext(t.Context(), args, strings.NewReader("pw\n"), &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

// copyCoordinatorConfig copies the coordinator's example config (a long,
// commented file) into a temporary directory.
func copyCoordinatorConfig(t *testing.T) (string, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "config", "example.yaml"))
	require.NoError(t, err)
	require.Greater(t, bytes.Count(b, []byte("\n")), 100)
	path := filepath.Join(t.TempDir(), "coord.yaml")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path, b
}

func TestLoginNeverTouchesTheCoordinatorConfig(t *testing.T) {
	isolate(t)
	coord, orig := copyCoordinatorConfig(t)
	xdg := t.TempDir()
	t.Setenv("STREAMCTL_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("RSC_CONFIG", coord) // set for the coordinator in the same shell
	f := newFakeAPI(t)
	f.on("POST", "/coord/v1/auth/login", 200, loginOK)

	r := login(t, "--url", f.URL)
	require.Equal(t, 0, r.code, r.stderr)
	own := filepath.Join(xdg, "streamctl", "config.yaml")
	require.Contains(t, r.stdout, "Saved to "+own)
	require.Contains(t, r.stderr, "RSC_CONFIG ("+coord+") is the coordinator's config file; streamctl never uses it")
	after, err := os.ReadFile(coord)
	require.NoError(t, err)
	require.Equal(t, orig, after, "the coordinator's file is byte-identical")
	st, err := os.Stat(coord)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), st.Mode().Perm())
	b, err := os.ReadFile(own)
	require.NoError(t, err)
	require.Contains(t, string(b), "tok-new")

	// Named explicitly, the coordinator's file is refused before logging in.
	n := len(f.requests())
	r = login(t, "--url", f.URL, "--config", coord)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "config file "+coord+` looks like the coordinator's config (it has "http", "redis"`)
	require.Contains(t, r.stderr, "streamctl never rewrites it")
	require.Contains(t, r.stderr, "--config FILE or set STREAMCTL_CONFIG")
	require.Len(t, f.requests(), n, "no login request for a token that could not be stored")
	after, _ = os.ReadFile(coord)
	require.Equal(t, orig, after)

	// Read (not written), it is warned about and its keys ignored.
	f.on("GET", "/coord/v1/monitoring/groups", 200, `{"groups":[]}`)
	r = ctl(t, "--url", f.URL, "--config", coord, "groups")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stderr, "looks like the coordinator's config")
}

func TestLoginKeepsCommentsKeysAndMode(t *testing.T) {
	path := isolate(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	orig := `# streamctl settings for the staging cluster
url: http://old.example:8080 # replaced by login

# who I am
user: ops
token: old-token
`
	require.NoError(t, os.WriteFile(path, []byte(orig), 0o640))
	f := newFakeAPI(t)
	f.on("POST", "/coord/v1/auth/login", 200, loginOK)

	r := login(t, "--url", f.URL)
	require.Equal(t, 0, r.code, r.stderr)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	got := string(b)
	for _, want := range []string{"# streamctl settings for the staging cluster", "# replaced by login", "# who I am",
		"user: ops", "url: " + f.URL, "token: tok-new", "tokenExpiresAt: \"2030-01-01T00:00:00Z\""} {
		require.Contains(t, got, want)
	}
	require.NotContains(t, got, "old-token")
	require.NotContains(t, got, "old.example")
	require.Less(t, strings.Index(got, "url:"), strings.Index(got, "user:"), "key order kept")
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "an existing file keeps its mode")

	// A key streamctl does not know: not its file, left alone.
	withForeign := got + "color: red\n"
	require.NoError(t, os.WriteFile(path, []byte(withForeign), 0o600))
	r = login(t, "--url", f.URL)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, `config file `+path+` has key(s) "color" that streamctl does not know`)
	b, _ = os.ReadFile(path)
	require.Equal(t, withForeign, string(b))
}

func TestLoginThroughSymlinkKeepsTheLink(t *testing.T) {
	path := isolate(t)
	dir := filepath.Dir(path)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	real := filepath.Join(dir, "real.yaml")
	require.NoError(t, os.WriteFile(real, []byte("user: ops\n"), 0o600))
	require.NoError(t, os.Symlink(real, path))
	f := newFakeAPI(t)
	f.on("POST", "/coord/v1/auth/login", 200, loginOK)
	r := login(t, "--url", f.URL)
	require.Equal(t, 0, r.code, r.stderr)
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	require.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is kept")
	b, err := os.ReadFile(real)
	require.NoError(t, err)
	require.Contains(t, string(b), "token: tok-new")
}

func TestDeprecatedRSCVariables(t *testing.T) {
	isolate(t)
	f, other := newFakeAPI(t), newFakeAPI(t)
	for _, s := range []*fakeAPI{f, other} {
		s.on("GET", "/coord/v1/monitoring/groups", 200, `{"groups":[]}`)
	}
	t.Setenv("RSC_URL", f.URL)
	t.Setenv("RSC_TOKEN", "old-name-token")
	r := ctl(t, "groups")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "Bearer old-name-token", f.last(t).Auth)
	require.Contains(t, r.stderr, "RSC_URL is deprecated for streamctl and will stop working in the next release: use STREAMCTL_URL")
	require.Contains(t, r.stderr, "use STREAMCTL_TOKEN")
	require.Equal(t, 2, strings.Count(r.stderr, "\n"), "one line per variable: %s", r.stderr)

	t.Setenv("STREAMCTL_URL", other.URL)
	r = ctl(t, "groups")
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, other.requests(), 1, "STREAMCTL_URL wins over RSC_URL")
	require.Contains(t, r.stderr, "RSC_URL is ignored: STREAMCTL_URL is set")
}

// The coordinator's sections (from its own key table) are all recognised,
// so a coordinator file is named as such.
func TestCoordinatorSectionsKnown(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range config.Keys() {
		section, _, _ := strings.Cut(k, ".")
		if !seen[section] {
			seen[section] = true
			require.Contains(t, configfile.CoordinatorSections, section)
		}
	}
	require.NotEmpty(t, seen)
}
