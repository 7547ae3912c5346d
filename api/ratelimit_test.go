package api

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

func TestAdminMutationsRateLimitedPerPrincipal(t *testing.T) {
	cfg := authConfig(t)
	cfg.Auth.Users = append(cfg.Auth.Users, config.User{Username: "admin2", Password: "admin2-pass", Roles: []string{"WRITE"}})
	cfg.Auth.AdminRateLimit, cfg.Auth.AdminRateBurst = 0.5, 2
	clock := newClock()
	h := newHarness(t, cfg, WithClock(clock.Now))
	admin := basic("admin", "admin-pass")
	create := func(authz string) reply {
		return h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`, "Authorization", authz)
	}
	require.Equal(t, 201, create(admin).status)
	// Every admin mutation shares the principal's bucket, valid or not.
	require.Equal(t, 400, h.do("POST", "/coord/v1/streams/orders/scale", `{}`, "Authorization", admin).status)
	r := create(admin)
	require.Equal(t, 429, r.status)
	require.Equal(t, "2", r.header.Get("Retry-After"))
	e := r.errorBody(t)
	require.Equal(t, protocol.CodeRateLimited, e.ErrorCode)
	require.Equal(t, "TOO_MANY_REQUESTS", e.Status)
	for _, m := range []struct{ method, path, body string }{
		{"DELETE", "/coord/v1/streams/orders/groups/g", `{"requestedBy":"ops"}`},
		{"POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":1,"requestedBy":"ops"}`},
		{"POST", "/coord/v1/streams/orders/groups/g/migrations/r/rollback", `{"requestedBy":"ops"}`},
	} {
		require.Equal(t, 429, h.do(m.method, m.path, m.body, "Authorization", admin).status, m.path)
	}
	// Reads and other principals are not limited.
	require.Equal(t, 200, h.do("GET", "/coord/v1/streams/orders/groups/g", "", "Authorization", admin).status)
	require.Equal(t, 201, create(basic("admin2", "admin2-pass")).status)
	// The bucket refills.
	clock.Advance(1500 * time.Millisecond)
	r = create(admin)
	require.Equal(t, 429, r.status)
	require.Equal(t, "1", r.header.Get("Retry-After"))
	clock.Advance(500 * time.Millisecond)
	require.Equal(t, 201, create(admin).status)
	require.Equal(t, []string{"CreateStream orders", "Group orders/g", "CreateStream orders", "CreateStream orders"}, h.fake.Calls())
}

// The admin limit is never off (config wants it positive); a zero Config
// takes config's default (auth.admin-rate-burst 20), a larger burst more.
func TestRateLimitDefaultsAndAuthOff(t *testing.T) {
	h := newHarness(t, Config{}, WithClock(newClock().Now))
	for i := 0; i < config.Default().Auth.AdminRateBurst; i++ {
		require.Equal(t, 201, h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`).status)
	}
	require.Equal(t, 429, h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`).status)
	h = newHarness(t, Config{Auth: config.Auth{AdminRateLimit: 1e9, AdminRateBurst: 100}})
	for i := 0; i < 50; i++ {
		require.Equal(t, 201, h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`).status)
	}
	// With auth off, the principal is the client IP.
	h = newHarness(t, Config{Auth: config.Auth{AdminRateLimit: 1, AdminRateBurst: 1}}, WithClock(newClock().Now))
	require.Equal(t, 201, h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`).status)
	require.Equal(t, 429, h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`).status)
}

func TestFailedLoginsLimitedPerClientBehindTrustedProxy(t *testing.T) {
	cfg := authConfig(t)
	cfg.Auth.FailedAuthPerAddressRate, cfg.Auth.FailedAuthPerAddressBurst = 0.001, 1
	cfg.TrustedProxies = []string{"0.0.0.0/0", "::/0"}
	h := newHarness(t, cfg, WithClock(newClock().Now))
	loginFrom := func(ip, user string) int {
		return h.do("POST", "/coord/v1/auth/login", `{"username":"`+user+`","password":"x"}`, "X-Forwarded-For", ip).status
	}
	require.Equal(t, 401, loginFrom("10.0.0.1", "nobody"))
	require.Equal(t, 429, loginFrom("10.0.0.1", "nobody"))
	require.Equal(t, 401, loginFrom("10.0.0.2", "nobody"), "another client behind the same proxy has its own bucket")
}
