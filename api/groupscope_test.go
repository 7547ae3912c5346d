package api

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/config"
)

// TestGroupScopeOnListAndStreamRoutes: a user scoped to groups sees only
// its groups in the list routes, is refused the routes that show every
// group, and may not change the whole stream (create, delete, scale,
// roll back); it may still create and use its own groups.
func TestGroupScopeOnListAndStreamRoutes(t *testing.T) {
	cfg := authConfig(t)
	cfg.Auth.Users = append(cfg.Auth.Users,
		config.User{Username: "gteam", Password: "gteam-pass", Roles: []string{"WRITE"}, Groups: []string{"g"}},
		config.User{Username: "bteam", Password: "bteam-pass", Roles: []string{"READ"}, Groups: []string{"bill*"}})
	h := newHarness(t, cfg)
	get := func(user, path string) reply {
		return h.do("GET", path, "", "Authorization", basic(user, user+"-pass"))
	}
	r := get("gteam", "/coord/v1/monitoring/groups")
	require.Equal(t, 200, r.status)
	require.Contains(t, string(r.body), `"consumerGroup":"g"`)
	r = get("bteam", "/coord/v1/monitoring/groups")
	require.Equal(t, 200, r.status)
	require.JSONEq(t, `{"groups":[]}`, string(r.body), "a group outside the scope is not listed")
	for _, p := range []string{"/debug/actors", "/metrics", "/coord/v1/monitoring/cluster"} {
		r := get("bteam", p)
		require.Equal(t, 403, r.status, p)
		require.Contains(t, r.errorBody(t).Message, "scoped to consumer groups [bill*]")
	}
	body := `{"requestedBy":"ops","reason":"x"}`
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/coord/v1/streams/orders", body},
		{"DELETE", "/coord/v1/streams/orders", body},
		{"POST", "/coord/v1/streams/orders/scale", scaleBody},
		{"POST", "/coord/v1/streams/orders/migrations/rs-1/rollback", body},
		{"POST", "/coord/v1/streams/orders/groups/g/migrations/rs-1/rollback", body},
	} {
		r := h.do(c.method, c.path, c.body, "Authorization", basic("gteam", "gteam-pass"))
		require.Equal(t, 403, r.status, "%s %s", c.method, c.path)
		require.Contains(t, r.errorBody(t).Message, "changes every consumer group of the stream")
		require.NotEqual(t, 403, h.do(c.method, c.path, c.body, "Authorization", basic("admin", "admin-pass")).status,
			"an unscoped WRITE user: %s %s", c.method, c.path)
	}
	require.Equal(t, 201, h.do("POST", "/coord/v1/streams/orders/groups/g", body, "Authorization", basic("gteam", "gteam-pass")).status,
		"its own group")
}
