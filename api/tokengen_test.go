package api

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/api/auth"
	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

const revokePath = "/coord/v1/auth/users/grafana/revoke-tokens"

func bearerOf(t *testing.T, h *harness, user, pass string) string {
	t.Helper()
	r, lr := login(t, h, user, pass)
	require.Equal(t, 200, r.status, string(r.body))
	return "Bearer " + lr.AccessToken
}

// TestRevokeTokens: an ADMIN revokes a user's tokens; its old tokens are
// refused at once on this node, other users' tokens and its Basic
// credentials are not affected, and a new login works. Only ADMIN may.
func TestRevokeTokens(t *testing.T) {
	h := newHarness(t, authConfig(t))
	old := bearerOf(t, h, "grafana", "grafana-pass")
	boss := bearerOf(t, h, "boss", "boss-pass")
	require.Equal(t, 200, h.do("GET", groupsPath, "", "Authorization", old).status)

	body := `{"requestedBy":"ops","reason":"laptop lost"}`
	for _, who := range []string{basic("grafana", "grafana-pass"), basic("admin", "admin-pass"), basic("member", "member-pass")} {
		require.Equal(t, 403, h.do("POST", revokePath, body, "Authorization", who).status, "not ADMIN")
	}
	r := h.do("POST", revokePath, body, "Authorization", boss)
	require.Equal(t, 200, r.status, string(r.body))
	var resp protocol.RevokeTokensResponse
	r.decode(t, &resp)
	require.Equal(t, protocol.RevokeTokensResponse{Username: "grafana", TokenGeneration: 1, Configured: true,
		OtherNodesWithinSeconds: int(config.Default().Auth.TokenRevocationWindow.Seconds())}, resp)

	rr := h.do("GET", groupsPath, "", "Authorization", old)
	require.Equal(t, 401, rr.status, "the revoked token: %s %s", rr.body, h.logs.String())
	require.Equal(t, 200, h.do("GET", groupsPath, "", "Authorization", boss).status, "another user's token")
	require.Equal(t, 200, h.do("GET", groupsPath, "", "Authorization", basic("grafana", "grafana-pass")).status, "Basic credentials")
	require.Equal(t, 200, h.do("GET", groupsPath, "", "Authorization", bearerOf(t, h, "grafana", "grafana-pass")).status, "a new token")

	require.Equal(t, 400, h.do("POST", "/coord/v1/auth/users/a:b/revoke-tokens", body, "Authorization", boss).status)
	require.Equal(t, 400, h.do("POST", revokePath, `{}`, "Authorization", boss).status, "requestedBy is required")
	r = h.do("POST", "/coord/v1/auth/users/gone/revoke-tokens", body, "Authorization", boss)
	require.Equal(t, 200, r.status)
	require.Contains(t, string(r.body), `"configured":false`)
	lines := auditLines(h)
	require.Contains(t, lines[len(lines)-1], "route=/coord/v1/auth/users/:username/revoke-tokens")
}

// TestRevokedTokenOnAnotherNode: a node that did not revoke refuses the
// token once its copy of the generations is read again, within
// auth.token-revocation-window.
func TestRevokedTokenOnAnotherNode(t *testing.T) {
	clock := newClock()
	cfg := authConfig(t) // the same bcrypt hashes on both nodes
	a := newHarness(t, cfg, WithClock(clock.Now))
	b := newHarness(t, cfg, WithTokenGenerations(a.fake), WithClock(clock.Now))
	tok := bearerOf(t, a, "grafana", "grafana-pass")
	require.Equal(t, 200, b.do("GET", groupsPath, "", "Authorization", tok).status, "b read the generations: none revoked")
	require.Equal(t, 200, a.do("POST", revokePath, `{"requestedBy":"ops"}`, "Authorization", basic("boss", "boss-pass")).status)
	require.Equal(t, 200, b.do("GET", groupsPath, "", "Authorization", tok).status, "b's copy is fresh: not yet seen")
	clock.Advance(config.Default().Auth.TokenRevocationWindow)
	require.Equal(t, 401, b.do("GET", groupsPath, "", "Authorization", tok).status, "a copy older than the revocation window is read again first")
}

// flakyGens is a generation store that can be made to fail.
type flakyGens struct {
	mu   sync.Mutex
	down bool
	gens map[string]int64
}

func (f *flakyGens) TokenGenerations(context.Context) (map[string]int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return nil, coordinator.ErrUnavailable
	}
	return map[string]int64{"grafana": f.gens["grafana"], "boss": f.gens["boss"]}, nil
}

func (f *flakyGens) RevokeTokens(_ context.Context, user string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return 0, coordinator.ErrUnavailable
	}
	f.gens[user]++
	return f.gens[user], nil
}

// TestTokenGenerationsUnavailable: with the store down past the revocation window,
// WRITE and ADMIN routes refuse bearer tokens 503 (fail closed) while READ
// routes and member heartbeats go on with the last generations read (fail
// open); Basic credentials are not affected; the failure is counted.
func TestTokenGenerationsUnavailable(t *testing.T) {
	clock := newClock()
	store := &flakyGens{gens: map[string]int64{}}
	cfg := authConfig(t)
	cfg.Auth.AuthenticateMemberAPI = true
	h := newHarness(t, cfg, WithTokenGenerations(store), WithClock(clock.Now))
	boss := bearerOf(t, h, "boss", "boss-pass")
	member := bearerOf(t, h, "member", "member-pass")
	require.Equal(t, 200, h.do("GET", groupsPath, "", "Authorization", boss).status)

	store.mu.Lock()
	store.down = true
	store.mu.Unlock()
	clock.Advance(config.Default().Auth.TokenRevocationWindow)
	r := h.do("POST", "/coord/v1/streams/orders/groups/g", `{"requestedBy":"ops"}`, "Authorization", boss)
	require.Equal(t, 503, r.status, "WRITE route: fail closed")
	require.Equal(t, "STORE_UNAVAILABLE", r.errorBody(t).ErrorCode)
	require.Equal(t, "1", r.header.Get("Retry-After"))
	require.Equal(t, 503, h.do("POST", revokePath, `{"requestedBy":"ops"}`, "Authorization", boss).status, "ADMIN route: fail closed")
	require.Equal(t, 200, h.do("GET", groupsPath, "", "Authorization", boss).status, "READ route: fail open")
	require.Equal(t, 200, h.do("POST", hbPath, hbBody, "Authorization", member).status, "heartbeat: members are not dropped")
	require.Equal(t, 201, h.do("POST", "/coord/v1/streams/orders/groups/g", `{"requestedBy":"ops"}`, "Authorization", basic("boss", "boss-pass")).status,
		"Basic credentials carry no generation")
	mr := h.do("GET", "/metrics", "", "Authorization", basic("boss", "boss-pass"))
	require.Regexp(t, `rsc_auth_token_generation_read_failures_total [1-9]`, string(mr.body))

	store.mu.Lock()
	store.down = false
	store.mu.Unlock()
	clock.Advance(auth.TokenGenRetry)
	require.Eventually(t, func() bool {
		return h.do("POST", "/coord/v1/streams/orders/groups/g", `{"requestedBy":"ops"}`, "Authorization", boss).status == 201
	}, 5*time.Second, 10*time.Millisecond, "the store answers again")
}
