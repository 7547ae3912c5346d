package api

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/redisstream/coordinator/api/auth"
	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

const (
	testSecret  = "0123456789abcdef-test-secret"
	otherSecret = "another-secret-0123456789"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func bcryptOf(t testing.TB, pw string) string {
	h, err := auth.BcryptGenerate([]byte(pw), bcrypt.MinCost) // once per password (bcryptonce_test.go)
	require.NoError(t, err)
	return string(h)
}

func authConfig(t testing.TB) Config {
	grafana := bcryptOf(t, "grafana-pass")
	return Config{Auth: config.Auth{
		TokenSecret: testSecret,
		TokenTTL:    time.Minute,
		Users: []config.User{
			{Username: "admin", Password: "admin-pass", Roles: []string{"WRITE"}},
			{Username: "grafana", Password: grafana, Roles: []string{"READ"}},
			{Username: "legacy", Password: "$2y$" + strings.TrimPrefix(bcryptOf(t, "legacy-pass"), "$2a$"), Roles: []string{"READ"}},
			{Username: "member", Password: "member-pass", Roles: []string{"MEMBER"}},
			{Username: "boss", Password: "boss-pass", Roles: []string{"ADMIN"}},
			{Username: "dash", Password: "dash-pass", Roles: []string{"MONITOR"}},
		},
	}}
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// routing marks a route open to READ and MEMBER (producer routing).
const routing = "READ|MEMBER"

var protectedRoutes = []struct {
	method, path, body string
	need               string
}{
	{"POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`, config.RoleWrite},
	{"GET", "/coord/v1/streams/orders/groups/g", "", config.RoleWrite},
	{"DELETE", "/coord/v1/streams/orders/groups/g", `{"requestedBy":"ops"}`, config.RoleWrite},
	{"GET", "/coord/v1/streams/orders/groups/g/producer-routing", "", routing},
	{"POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":2,"requestedBy":"ops"}`, config.RoleWrite},
	{"POST", "/coord/v1/streams/orders/groups/g/migrations/rs1/rollback", `{"requestedBy":"ops"}`, config.RoleWrite},
	{"GET", "/coord/v1/streams/orders/groups/g/migrations/rs1", "", config.RoleRead},
	{"GET", "/coord/v1/streams/orders/migrations", "", config.RoleRead},
	{"POST", "/coord/v1/streams/orders/migrations/rs1/rollback", `{"requestedBy":"ops"}`, config.RoleWrite},
	{"GET", "/coord/v1/streams/orders/groups/g/offsets", "", config.RoleRead},
	{"GET", "/coord/v1/streams/orders/shards/0/messages", "", config.RoleRead},
	{"GET", "/coord/v1/monitoring/groups", "", config.RoleRead},
	{"GET", "/coord/v1/monitoring/streams/orders/groups/g/members", "", config.RoleRead},
	{"GET", "/debug/actors", "", config.RoleRead},
	{"GET", "/debug/streams/orders/groups/g", "", config.RoleRead},
	{"GET", "/metrics", "", config.RoleRead},
}

func TestProtectedRoutesNeedCredentials(t *testing.T) {
	cfg := authConfig(t)
	for _, rt := range protectedRoutes {
		for _, authz := range []string{"", basic("admin", "wrong"), basic("nobody", "admin-pass"), "Basic !!!", "Basic " + base64.StdEncoding.EncodeToString([]byte("admin")), "Bearer", "Bearer abc.def.ghi", "Digest x", "admin-pass"} {
			h := newHarness(t, cfg)
			r := h.do(rt.method, rt.path, rt.body, "Authorization", authz)
			h.assertRejected(r, 401, protocol.CodeUnauthenticated)
			require.Equal(t, `Basic realm="rsc"`, r.header.Get("WWW-Authenticate"))
		}
	}
}

func TestRoles(t *testing.T) {
	cfg := authConfig(t)
	users := map[string]string{"admin": "admin-pass", "grafana": "grafana-pass", "legacy": "legacy-pass", "member": "member-pass", "boss": "boss-pass", "dash": "dash-pass"}
	reader := map[string]bool{"admin": true, "grafana": true, "legacy": true, "boss": true, "dash": true}
	for _, rt := range protectedRoutes {
		for user, pass := range users {
			var allowed bool
			switch rt.need {
			case config.RoleWrite:
				allowed = user == "admin" || user == "boss"
			case config.RoleRead:
				allowed = reader[user]
			case routing:
				allowed = reader[user] || user == "member"
			}
			h := newHarness(t, cfg)
			r := h.do(rt.method, rt.path, rt.body, "Authorization", basic(user, pass))
			if allowed {
				require.Less(t, r.status, 300, "%s on %s %s: %s", user, rt.method, rt.path, r.body)
			} else {
				h.assertRejected(r, 403, protocol.CodeForbidden)
			}
		}
	}
	// Public and any-role routes.
	h := newHarness(t, cfg)
	require.Equal(t, 200, h.do("GET", "/coord/v1/monitoring/health", "").status)
	require.Equal(t, 200, h.do("GET", "/coord/v1/monitoring/ready", "").status)
	require.Equal(t, 200, h.do("GET", "/coord/v1/monitoring/compatibility", "").status, "member auth off: open like heartbeats")
	cfg.Auth.AuthenticateMemberAPI = true
	h = newHarness(t, cfg)
	require.Equal(t, 401, h.do("GET", "/coord/v1/monitoring/compatibility", "").status)
	for user, pass := range users {
		require.Equal(t, 200, h.do("GET", "/coord/v1/monitoring/compatibility", "", "Authorization", basic(user, pass)).status)
	}
}

func TestMemberAPIAuth(t *testing.T) {
	cfg := authConfig(t)
	h := newHarness(t, cfg)
	require.Equal(t, 200, h.do("POST", hbPath, hbBody).status, "member auth off: heartbeats are open")

	cfg.Auth.AuthenticateMemberAPI = true
	h = newHarness(t, cfg)
	h.assertRejected(h.do("POST", hbPath, hbBody), 401, protocol.CodeUnauthenticated)
	h.assertRejected(h.do("POST", hbPath, hbBody, "Authorization", basic("member", "nope")), 401, protocol.CodeUnauthenticated)
	h.assertRejected(h.do("POST", hbPath, hbBody, "Authorization", basic("admin", "admin-pass")), 403, protocol.CodeForbidden)
	require.Equal(t, 200, h.do("POST", hbPath, hbBody, "Authorization", basic("member", "member-pass")).status)
	// Authentication comes before input validation: no probing without credentials.
	h = newHarness(t, cfg)
	h.assertRejected(h.do("POST", hbPath, `{`), 401, protocol.CodeUnauthenticated)
}

func login(t *testing.T, h *harness, user, pass string) (reply, protocol.LoginResponse) {
	t.Helper()
	body, _ := json.Marshal(protocol.LoginRequest{Username: user, Password: pass})
	r := h.do("POST", "/coord/v1/auth/login", string(body))
	var lr protocol.LoginResponse
	if r.status == 200 {
		r.decode(t, &lr)
	}
	return r, lr
}

func TestTokens(t *testing.T) {
	cfg := authConfig(t)
	clock := newClock()
	h := newHarness(t, cfg, WithClock(clock.Now))

	r, lr := login(t, h, "admin", "admin-pass")
	require.Equal(t, 200, r.status, "%s", r.body)
	require.Equal(t, "Bearer", lr.TokenType)
	require.Equal(t, "no-store", r.header.Get("Cache-Control"))
	require.Equal(t, int64(60), lr.ExpiresInSeconds)
	require.Equal(t, clock.Now().Add(time.Minute).Format(time.RFC3339), lr.ExpiresAt)
	require.ElementsMatch(t, []string{"READ", "WRITE"}, lr.Roles)
	bearer := "Bearer " + lr.AccessToken

	require.Equal(t, 201, h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`, "Authorization", bearer).status)
	require.Equal(t, 200, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", "bearer "+lr.AccessToken).status)

	// A READ token cannot write.
	_, ro := login(t, h, "grafana", "grafana-pass")
	require.Equal(t, []string{"READ"}, ro.Roles)
	require.Equal(t, 403, h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`, "Authorization", "Bearer "+ro.AccessToken).status)

	// Tampering: change the payload (claim WRITE) and keep the signature.
	parts := strings.Split(ro.AccessToken, ".")
	forged := strings.Replace(mustB64(t, parts[1]), `"READ"`, `"WRITE"`, 1)
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(forged)) + "." + parts[2]
	require.Equal(t, 401, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", "Bearer "+tampered).status)
	// alg=none with no signature.
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	require.Equal(t, 401, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", "Bearer "+none).status)

	// A token signed with another secret is refused.
	other := cfg
	other.Auth.TokenSecret = "another-secret-of-enough-length"
	h2 := newHarness(t, other, WithClock(clock.Now))
	_, foreign := login(t, h2, "admin", "admin-pass")
	r = h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", "Bearer "+foreign.AccessToken)
	require.Equal(t, 401, r.status)
	require.Equal(t, protocol.CodeUnauthenticated, r.errorBody(t).ErrorCode)

	// A token whose user is no longer configured is refused.
	fewer := cfg
	fewer.Auth.Users = cfg.Auth.Users[1:]
	h3 := newHarness(t, fewer, WithClock(clock.Now))
	h3.assertRejected(h3.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", bearer), 401, protocol.CodeUnauthenticated)

	// Expiry.
	clock.Advance(59 * time.Second)
	require.Equal(t, 200, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", bearer).status)
	clock.Advance(time.Second)
	r = h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", bearer)
	require.Equal(t, 401, r.status)
	require.Equal(t, protocol.CodeUnauthenticated, r.errorBody(t).ErrorCode)

	// Wrong login.
	r, _ = login(t, h, "admin", "nope")
	require.Equal(t, 401, r.status)
	require.Equal(t, protocol.CodeUnauthenticated, r.errorBody(t).ErrorCode)
	r, _ = login(t, h, "ghost", "admin-pass")
	require.Equal(t, 401, r.status)
	require.Equal(t, 400, h.do("POST", "/coord/v1/auth/login", `{"username":"admin"}`).status)
	require.Equal(t, 400, h.do("POST", "/coord/v1/auth/login", `{"username":`).status)

	// Nothing secret was logged.
	logs := h.logs.String() + h2.logs.String() + h3.logs.String()
	require.Contains(t, logs, "authentication failed")
	for _, secret := range []string{"admin-pass", "grafana-pass", lr.AccessToken, ro.AccessToken, parts[2], testSecret, "nope", "Bearer", "Basic"} {
		require.NotContains(t, logs, secret)
	}
	require.NotContains(t, logs, "ghost", "unknown usernames (maybe mistyped passwords) are not logged")
}

func mustB64(t *testing.T, s string) string {
	b, err := base64.RawURLEncoding.DecodeString(s)
	require.NoError(t, err)
	return string(b)
}

func TestBcryptUsers(t *testing.T) {
	h := newHarness(t, authConfig(t))
	for i := 0; i < 3; i++ { // the second and third hit the verified-password cache
		require.Equal(t, 200, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", basic("grafana", "grafana-pass")).status)
		require.Equal(t, 401, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", basic("grafana", "grafana-pass2")).status)
		require.Equal(t, 401, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", basic("grafana", "")).status)
		require.Equal(t, 200, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", basic("legacy", "legacy-pass")).status)
	}
	r, lr := login(t, h, "grafana", "grafana-pass")
	require.Equal(t, 200, r.status)
	require.NotEmpty(t, lr.AccessToken)
	for _, s := range []string{"grafana-pass", "legacy-pass"} {
		require.NotContains(t, h.logs.String(), s)
	}
}

func TestLoginWithAuthOff(t *testing.T) {
	h := newHarness(t, Config{})
	r := h.do("POST", "/coord/v1/auth/login", `{"username":"a","password":"b"}`)
	require.Equal(t, 400, r.status)
	e := r.errorBody(t)
	require.Equal(t, protocol.CodeAuthDisabled, e.ErrorCode)
	require.Contains(t, e.Message, "no auth.users configured")
	require.Equal(t, 400, h.do("POST", "/coord/v1/auth/login", "", "Authorization", basic("a", "b")).status)
	require.Contains(t, h.logs.String(), "AUTHENTICATION IS OFF")
}

func TestConfigValidate(t *testing.T) {
	good := authConfig(t)
	require.NoError(t, good.Validate())
	require.NoError(t, Config{}.Validate())
	mutate := func(f func(c *Config)) Config {
		c := authConfig(t)
		c.Auth.Users = append([]config.User(nil), c.Auth.Users...)
		f(&c)
		return c
	}
	bad := map[string]Config{
		"no secret":          mutate(func(c *Config) { c.Auth.TokenSecret = "" }),
		"short secret":       mutate(func(c *Config) { c.Auth.TokenSecret = "short" }),
		"unknown role":       mutate(func(c *Config) { c.Auth.Users[0].Roles = []string{"SUPERUSER"} }),
		"short previous":     mutate(func(c *Config) { c.Auth.PreviousTokenSecrets = []string{"short"} }),
		"previous = current": mutate(func(c *Config) { c.Auth.PreviousTokenSecrets = []string{testSecret} }),
		"ttl too long":       mutate(func(c *Config) { c.Auth.TokenTTL = 8760*time.Hour + time.Second }),
		"negative ttl":       mutate(func(c *Config) { c.Auth.TokenTTL = -time.Second }),
		"no roles":           mutate(func(c *Config) { c.Auth.Users[0].Roles = nil }),
		"empty password":     mutate(func(c *Config) { c.Auth.Users[0].Password = "" }),
		"bad bcrypt":         mutate(func(c *Config) { c.Auth.Users[0].Password = "$2a$10$short" }),
		"duplicate user":     mutate(func(c *Config) { c.Auth.Users[1].Username = "admin" }),
		"colon in user":      mutate(func(c *Config) { c.Auth.Users[0].Username = "a:b" }),
		"negative limit":     {BodyLimit: -1},
	}
	for name, c := range bad {
		err := c.Validate()
		require.Error(t, err, name)
		require.NotContains(t, err.Error(), "admin-pass", name)
		require.NotContains(t, err.Error(), testSecret, name)
		require.Panics(t, func() { New(c, newFake()) }, name)
	}
}

// The reference's clients log in with an empty body and Basic credentials in
// the header, once, and keep the token: it lasts 7 days by default.
func TestLoginWithBasicHeaderAndDefaultTTL(t *testing.T) {
	cfg := authConfig(t)
	cfg.Auth.TokenTTL = 0 // default
	clock := newClock()
	h := newHarness(t, cfg, WithClock(clock.Now))
	for _, body := range []string{"", "{}", `{"username":"","password":""}`} {
		r := h.do("POST", "/coord/v1/auth/login", body, "Authorization", basic("member", "member-pass"))
		require.Equal(t, 200, r.status, "body %q: %s", body, r.body)
		var lr protocol.LoginResponse
		r.decode(t, &lr)
		require.Equal(t, int64(7*24*3600), lr.ExpiresInSeconds)
		require.Equal(t, []string{"MEMBER"}, lr.Roles)
		require.Equal(t, 200, h.do("GET", "/coord/v1/streams/orders/groups/g/producer-routing", "", "Authorization", "Bearer "+lr.AccessToken).status)
	}
	// ADMIN maps to every role.
	_, lr := login(t, h, "boss", "boss-pass")
	require.ElementsMatch(t, []string{"READ", "WRITE", "MEMBER"}, lr.Roles)
	// Missing or wrong header credentials with an empty body: 401 saying what
	// to send. A bearer token cannot be renewed into a new one.
	h = newHarness(t, cfg, WithClock(clock.Now))
	r := h.do("POST", "/coord/v1/auth/login", "", "Authorization", "Bearer "+lr.AccessToken)
	h.assertRejected(r, 401, protocol.CodeUnauthenticated)
	r = h.do("POST", "/coord/v1/auth/login", "")
	h.assertRejected(r, 401, protocol.CodeUnauthenticated)
	require.Contains(t, r.errorBody(t).Message, "Basic credentials")
	h.assertRejected(h.do("POST", "/coord/v1/auth/login", "", "Authorization", basic("member", "nope")), 401, protocol.CodeUnauthenticated)
	// Still valid just before 7 days, expired at 7 days.
	bearer := "Bearer " + lr.AccessToken
	clock.Advance(7*24*time.Hour - time.Second)
	require.Equal(t, 200, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", bearer).status)
	clock.Advance(time.Second)
	require.Equal(t, 401, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", bearer).status)
}

// A server started with a new secret and the old one in
// previous-token-secrets accepts tokens issued before the rotation.
func TestTokenRotationAcrossRestart(t *testing.T) {
	cfg := authConfig(t)
	clock := newClock()
	before := newHarness(t, cfg, WithClock(clock.Now))
	_, lr := login(t, before, "grafana", "grafana-pass")
	bearer := "Bearer " + lr.AccessToken

	rotated := cfg
	rotated.Auth.TokenSecret = otherSecret
	rotated.Auth.PreviousTokenSecrets = []string{testSecret}
	during := newHarness(t, rotated, WithClock(clock.Now))
	require.Equal(t, 200, during.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", bearer).status)

	done := cfg
	done.Auth.TokenSecret = otherSecret
	after := newHarness(t, done, WithClock(clock.Now))
	after.assertRejected(after.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", bearer), 401, protocol.CodeUnauthenticated)
}

// A user scoped to some streams (auth.users[].streams) is refused, with 403 naming the scope,
// on every route that names another stream, whatever its roles; routes naming no stream are
// not scoped.
func TestStreamScopedUsers(t *testing.T) {
	cfg := authConfig(t)
	cfg.Auth.AuthenticateMemberAPI = true
	cfg.Auth.Users = append(cfg.Auth.Users,
		config.User{Username: "orders-w", Password: "ow-pass", Roles: []string{"MEMBER", "READ"}, Streams: []string{"orders", "orders:*"}})
	auth := basic("orders-w", "ow-pass")
	hb := func(h *harness, prefix, authz string) reply {
		return h.do("POST", "/coord/v1/streams/"+prefix+"/groups/workers/members/10.0.3.7-m0/heartbeat", hbBody,
			"Authorization", authz, "Content-Type", "application/json")
	}
	h := newHarness(t, cfg)
	require.Equal(t, 200, hb(h, "orders", auth).status, "in scope")
	require.Equal(t, 200, hb(h, "orders%3Av2", auth).status, "orders:v2 matches orders:*")
	require.Equal(t, 200, h.do("GET", "/coord/v1/streams/orders/groups/g/producer-routing", "", "Authorization", auth).status)
	require.Equal(t, 200, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", auth).status, "names no stream: not scoped")
	require.Equal(t, 200, hb(h, "payments", basic("member", "member-pass")).status, "an unscoped member is not affected")

	h = newHarness(t, cfg)
	r := hb(h, "payments", auth)
	h.assertRejected(r, 403, protocol.CodeForbidden)
	require.Contains(t, string(r.body), "scoped to streams [orders, orders:*]")
	require.Contains(t, string(r.body), "auth.users[].streams")
	h = newHarness(t, cfg)
	h.assertRejected(h.do("GET", "/coord/v1/streams/payments/groups/g/producer-routing", "", "Authorization", auth), 403, protocol.CodeForbidden)
}
