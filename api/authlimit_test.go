package api

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/api/auth"
	"github.com/redisstream/coordinator/config"
)

const groupsPath = "/coord/v1/monitoring/groups"

// TestBruteForceOnNonLoginRoute: wrong Basic passwords on a read route are
// refused 429 (with Retry-After) once the address is locked; another user
// from the same address with the right password still passes, and so does
// the attacked user with its right password until its own bucket is empty;
// the lock-out is audited once.
func TestBruteForceOnNonLoginRoute(t *testing.T) {
	cfg := authConfig(t)
	cfg.Auth.FailedAuthPerAddressRate, cfg.Auth.FailedAuthPerAddressBurst = 0.001, 5
	cfg.Auth.FailedAuthPerUserRate, cfg.Auth.FailedAuthPerUserBurst = 0.001, 8
	cfg.Auth.AuthenticateMemberAPI = true
	sink := &sinkRecorder{}
	h := newHarness(t, cfg, WithClock(newClock().Now), WithAuditSink(sink))
	statuses := map[int]int{}
	for i := 0; i < 7; i++ {
		statuses[h.do("GET", groupsPath, "", "Authorization", basic("grafana", fmt.Sprint("guess-", i))).status]++
	}
	require.Equal(t, map[int]int{401: 5, 429: 2}, statuses)
	r := h.do("GET", groupsPath, "", "Authorization", basic("nobody", "x"))
	require.Equal(t, 429, r.status, "an unknown user from a locked address")
	require.NotEmpty(t, r.header.Get("Retry-After"))
	require.Equal(t, "RATE_LIMIT_EXCEEDED", r.errorBody(t).ErrorCode)
	require.Equal(t, 200, h.do("GET", groupsPath, "", "Authorization", basic("dash", "dash-pass")).status,
		"a real user on the same address passes with the right password")
	require.Equal(t, 200, h.do("GET", groupsPath, "", "Authorization", basic("grafana", "grafana-pass")).status,
		"the attacked user too, until its own bucket is empty")
	require.Equal(t, 429, h.do("GET", groupsPath, "", "Authorization", basic("grafana", "guess-x")).status)
	// Its own bucket (8) is now empty: even the right password waits.
	require.Equal(t, 429, h.do("GET", groupsPath, "", "Authorization", basic("grafana", "grafana-pass")).status)
	// The heartbeat route is limited the same way.
	require.Equal(t, 429, h.do("POST", hbPath, hbBody, "Authorization", basic("member", "nope")).status)

	sink.mu.Lock()
	var locked []AuditRecord
	for _, rec := range sink.recs {
		if rec.Result == "locked" {
			locked = append(locked, rec)
		}
	}
	sink.mu.Unlock()
	require.Len(t, locked, 2, "one record per lock-out: the address and grafana at the address")
	require.Equal(t, "anonymous", locked[0].Principal)
	require.Contains(t, locked[0].Detail, "auth.failed-auth-per-address-burst")
	require.Equal(t, "grafana", locked[1].Principal)
	require.Contains(t, locked[1].Detail, "auth.failed-auth-per-user-burst")
	mr := h.do("GET", "/metrics", "", "Authorization", basic("dash", "dash-pass"))
	require.Equal(t, 200, mr.status)
	require.Regexp(t, `rsc_auth_failures_total\{outcome="locked"\} [1-9]`, string(mr.body))
}

// TestUnknownAndKnownUsersTakeTheSamePath counts bcrypt checks: a failure
// costs one, for unknown users, plain-password users and hashed ones alike;
// a repeated right password costs none (cached).
func TestUnknownAndKnownUsersTakeTheSamePath(t *testing.T) {
	var calls atomic.Int64
	orig := auth.BcryptCompare
	auth.BcryptCompare = func(h, p []byte) error { calls.Add(1); return orig(h, p) }
	t.Cleanup(func() { auth.BcryptCompare = orig })
	h := newHarness(t, authConfig(t))
	count := func(user, pass string) int64 {
		before := calls.Load()
		h.do("GET", groupsPath, "", "Authorization", basic(user, pass))
		return calls.Load() - before
	}
	require.Equal(t, int64(1), count("nobody", "x"), "unknown user")
	require.Equal(t, int64(1), count("admin", "x"), "plain-password user")
	require.Equal(t, int64(1), count("grafana", "x"), "bcrypt user")
	require.Equal(t, int64(1), count("grafana", "grafana-pass"), "first right password")
	require.Equal(t, int64(0), count("grafana", "grafana-pass"), "cached")
}

// TestAnonymousFloodIsSummarised: refused anonymous admin requests write one
// record per address per window plus one summary per window that had more;
// an authenticated record is written as usual.
func TestAnonymousFloodIsSummarised(t *testing.T) {
	cfg := authConfig(t)
	cfg.AuditRefusalWindow = 500 * time.Millisecond
	sink := &sinkRecorder{}
	h := newHarness(t, cfg, WithAuditSink(sink))
	start := time.Now()
	const flood = 300
	for i := 0; i < flood; i++ {
		require.Equal(t, 401, h.do("POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":0,"requestedBy":"x\nforged"}`).status)
	}
	windows := int(time.Since(start)/cfg.AuditRefusalWindow) + 1
	require.Equal(t, 201, h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`, "Authorization", basic("admin", "admin-pass")).status)
	counted := func() (n, records int, admin bool) {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		for _, r := range sink.recs {
			switch {
			case r.Principal == "admin" && r.Result == "ok":
				admin = true
			case r.Result == "denied":
				n, records = n+1, records+1
			case r.Result == "refused":
				var more int
				_, err := fmt.Sscanf(r.Detail, "%d more requests", &more)
				require.NoError(t, err, r.Detail)
				n, records = n+more, records+1
			}
			for _, f := range r.Fields() {
				require.NotContains(t, f.(string), "\n", "control characters are escaped")
			}
		}
		return n, records, admin
	}
	require.Eventually(t, func() bool { n, _, _ := counted(); return n == flood }, 10*time.Second, 10*time.Millisecond)
	_, records, admin := counted()
	require.True(t, admin, "the authenticated record is written")
	require.LessOrEqual(t, records, 2*windows+2, "at most a first record and a summary per window, not one per request")
}

// TestPasswordChangeRevokesTokens: a token issued before the user's
// password changed is refused by a server configured with the new one.
func TestPasswordChangeRevokesTokens(t *testing.T) {
	h := newHarness(t, authConfig(t))
	_, lr := login(t, h, "admin", "admin-pass")
	bearer := "Bearer " + lr.AccessToken
	require.Equal(t, 200, h.do("GET", groupsPath, "", "Authorization", bearer).status)
	cfg := authConfig(t)
	cfg.Auth.Users[0].Password = "new-admin-pass"
	h2 := newHarness(t, cfg)
	require.Equal(t, 401, h2.do("GET", groupsPath, "", "Authorization", bearer).status)
	require.Equal(t, 200, newHarness(t, authConfig(t)).do("GET", groupsPath, "", "Authorization", bearer).status,
		"another node with the same configuration accepts it")
}

// TestGroupScope: a MEMBER user scoped to groups heartbeats only in them.
func TestGroupScope(t *testing.T) {
	cfg := authConfig(t)
	cfg.Auth.AuthenticateMemberAPI = true
	cfg.Auth.Users = append(cfg.Auth.Users, config.User{Username: "billing", Password: "billing-pass", Roles: []string{"MEMBER"}, Groups: []string{"bill*"}})
	h := newHarness(t, cfg)
	other := strings.Replace(hbPath, "/groups/workers/", "/groups/other/", 1)
	r := h.do("POST", other, hbBody, "Authorization", basic("billing", "billing-pass"))
	require.Equal(t, 403, r.status)
	require.Contains(t, r.errorBody(t).Message, "auth.users[].groups")
	own := strings.Replace(hbPath, "/groups/workers/", "/groups/billing/", 1)
	require.Equal(t, 200, h.do("POST", own, hbBody, "Authorization", basic("billing", "billing-pass")).status)
}
