package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

const gapsSecret = "authgaps-secret-0123456789abcdef"

func gapsUsers(t *testing.T, viewerPassword string) string {
	t.Helper()
	raw, err := json.Marshal([]map[string]any{
		{"username": "ops", "password": "ops-password", "roles": []string{"ADMIN"}},
		{"username": "viewer", "password": viewerPassword, "roles": []string{"READ"}},
		{"username": "gwrite", "password": "gwrite-password", "roles": []string{"WRITE"}, "groups": []string{"billing"}},
		{"username": "gread", "password": "gread-password", "roles": []string{"READ"}, "groups": []string{"bill*"}},
	})
	require.NoError(t, err)
	return string(raw)
}

func gapsSettings(t *testing.T, viewerPassword string, extra map[string]string) map[string]string {
	s := map[string]string{"RSC_AUTH_USERS": gapsUsers(t, viewerPassword), "RSC_AUTH_TOKEN_SECRET": gapsSecret,
		"RSC_AUTH_AUTHENTICATE_MEMBER_API": "false"}
	for k, v := range extra {
		s[k] = v
	}
	return s
}

// loginAs trades user's password for a bearer token.
func loginAs(t *testing.T, base, user, password string) string {
	t.Helper()
	var lr protocol.LoginResponse
	harness.NewClient(base).MustDo(t, "POST", "/coord/v1/auth/login", protocol.LoginRequest{Username: user, Password: password}, &lr, 200)
	return lr.AccessToken
}

// withToken sends a request with a bearer token and returns the status.
func withToken(t *testing.T, base, token, method, path string, body any) int {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(raw)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, base+path, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// TestTokenRevocationAgainstAProcess: an operator revokes a user's tokens
// without a restart (the old token is refused at once, a new login works,
// another user's token is untouched); the revocation survives a restart
// (it is in Redis); and a password change refuses the user's tokens after
// the restart that applies it.
func TestTokenRevocationAgainstAProcess(t *testing.T) {
	e := start(t, gapsSettings(t, "viewer-password", nil))
	base := e.coord.URL()
	const groups = "/coord/v1/monitoring/groups"
	old := loginAs(t, base, "viewer", "viewer-password")
	opsToken := loginAs(t, base, "ops", "ops-password")
	require.Equal(t, 200, withToken(t, base, old, "GET", groups, nil))

	revoke := protocol.RevokeTokensRequest{RequestedBy: "e2e", Reason: "laptop lost"}
	require.Equal(t, 403, withToken(t, base, old, "POST", "/coord/v1/auth/users/viewer/revoke-tokens", revoke), "READ may not revoke")
	var resp protocol.RevokeTokensResponse
	as(e, "ops", "ops-password").MustDo(t, "POST", "/coord/v1/auth/users/viewer/revoke-tokens", revoke, &resp, 200)
	require.Equal(t, int64(1), resp.TokenGeneration)
	require.True(t, resp.Configured)

	require.Equal(t, 401, withToken(t, base, old, "GET", groups, nil), "refused without a restart")
	require.Equal(t, 200, withToken(t, base, opsToken, "GET", groups, nil), "another user's token")
	as(e, "viewer", "viewer-password").MustDo(t, "GET", groups, nil, nil, 200) // Basic credentials are not tokens
	fresh := loginAs(t, base, "viewer", "viewer-password")
	require.Equal(t, 200, withToken(t, base, fresh, "GET", groups, nil), "a new login")

	e.coord.Restart()
	require.Equal(t, 401, withToken(t, base, old, "GET", groups, nil), "the revocation is stored, not remembered")
	require.Equal(t, 200, withToken(t, base, fresh, "GET", groups, nil))

	// A password change: the same store, a process with the new password.
	e.coord.Kill()
	next := harness.StartCoordinator(t, harness.Options{RedisAddr: e.redis.Addr(),
		Env: mergeSettings(fastTiming, gapsSettings(t, "new-viewer-password", nil))})
	require.Equal(t, 401, withToken(t, next.URL(), fresh, "GET", groups, nil), "a token of the old password")
	require.Equal(t, 200, withToken(t, next.URL(), loginAs(t, next.URL(), "viewer", "new-viewer-password"), "GET", groups, nil))
	require.Equal(t, 200, withToken(t, next.URL(), opsToken, "GET", groups, nil), "other users keep their tokens")
}

func mergeSettings(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// TestGroupScopesAgainstAProcess: users scoped to groups see only their
// groups in the lists, are refused the node-wide routes, and a WRITE user
// scoped to a group cannot change the whole stream.
func TestGroupScopesAgainstAProcess(t *testing.T) {
	e := start(t, gapsSettings(t, "viewer-password", nil))
	ops := as(e, "ops", "ops-password")
	ops.MustDo(t, "POST", "/coord/v1/streams/orders", map[string]any{"initialShardCount": 4, "requestedBy": "e2e"}, nil, 201)
	for _, g := range []string{"billing", "workers"} {
		ops.MustDo(t, "POST", "/coord/v1/streams/orders/groups/"+g, map[string]any{"requestedBy": "e2e"}, nil, 201)
	}

	gread := as(e, "gread", "gread-password")
	var list protocol.GroupsResponse
	gread.MustDo(t, "GET", "/coord/v1/monitoring/groups", nil, &list, 200)
	require.Len(t, list.Groups, 1)
	require.Equal(t, "billing", list.Groups[0].ConsumerGroup)
	var all protocol.GroupsResponse
	ops.MustDo(t, "GET", "/coord/v1/monitoring/groups", nil, &all, 200)
	require.Len(t, all.Groups, 2, "the unscoped operator sees both")
	var view protocol.StreamView
	gread.MustDo(t, "GET", "/coord/v1/streams/orders", nil, &view, 200)
	require.Equal(t, []string{"billing"}, view.Groups)
	for _, p := range []string{"/debug/actors", "/metrics", "/coord/v1/monitoring/cluster", "/coord/v1/monitoring/streams/orders/groups/workers"} {
		raw := gread.MustDo(t, "GET", p, nil, nil, 403)
		require.Contains(t, string(raw), "scoped to consumer groups [bill*]", p)
	}

	gwrite := as(e, "gwrite", "gwrite-password")
	body := map[string]any{"requestedBy": "e2e", "reason": "whole stream"}
	for _, c := range []struct{ method, path string }{
		{"POST", "/coord/v1/streams/orders/scale"},
		{"DELETE", "/coord/v1/streams/orders"},
		{"POST", "/coord/v1/streams/payments"},
		{"POST", "/coord/v1/streams/orders/migrations/rs-1/rollback"},
		{"POST", "/coord/v1/streams/orders/groups/billing/migrations/rs-1/rollback"},
	} {
		b := body
		if c.path == "/coord/v1/streams/orders/scale" {
			b = map[string]any{"targetShardCount": 1, "requestedBy": "e2e"}
		}
		raw := gwrite.MustDo(t, c.method, c.path, b, nil, 403)
		require.Contains(t, string(raw), "changes every consumer group of the stream", "%s %s", c.method, c.path)
	}
	gwrite.MustDo(t, "DELETE", "/coord/v1/streams/orders/groups/workers", map[string]any{"requestedBy": "e2e", "force": true}, nil, 403)
	var after protocol.StreamView
	ops.MustDo(t, "GET", "/coord/v1/streams/orders", nil, &after, 200)
	require.Equal(t, 4, after.ShardCount, "nothing changed")
	ops.MustDo(t, "GET", "/coord/v1/monitoring/groups", nil, &all, 200)
	require.Len(t, all.Groups, 2)
}

// TestAuthenticatedAuditFloodAgainstAProcess: a READ credential sending
// many admin POSTs (each 403) cannot push a real admin record out of a
// small audit stream: its refusals are written under its own name, once
// and then as a summary.
func TestAuthenticatedAuditFloodAgainstAProcess(t *testing.T) {
	e := start(t, gapsSettings(t, "viewer-password", map[string]string{
		"RSC_AUDIT_REDIS_STREAM": "rsc:audit", "RSC_AUDIT_REDIS_MAXLEN": "50", "RSC_AUDIT_REFUSAL_WINDOW": "1s"}))
	as(e, "ops", "ops-password").MustDo(t, "POST", "/coord/v1/streams/orders", protocol.CreateStreamRequest{RequestedBy: "real-admin"}, nil, 201)
	viewer := as(e, "viewer", "viewer-password")
	const flood = 600
	for i := 0; i < flood; i++ {
		status, _, err := viewer.Do("POST", "/coord/v1/streams/orders/scale", map[string]any{"targetShardCount": 0, "requestedBy": "viewer"}, nil)
		require.NoError(t, err)
		require.Equal(t, 403, status)
	}
	rc := e.redis.NewClient(nil)
	defer rc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var adminOK, viewerRecords, counted int
	require.Eventually(t, func() bool {
		msgs, err := rc.XRange(ctx, "rsc:audit", "-", "+").Result()
		require.NoError(t, err)
		adminOK, viewerRecords, counted = 0, 0, 0
		for _, m := range msgs {
			v := m.Values
			switch {
			case v["principal"] == "ops" && v["result"] == "ok":
				adminOK++
			case v["principal"] == "viewer" && v["result"] == "denied":
				viewerRecords++
				counted++
			case v["principal"] == "viewer" && v["result"] == "refused":
				viewerRecords++
				var more int
				_, err := fmtSscan(v["detail"], &more)
				require.NoError(t, err)
				counted += more
			}
		}
		return counted == flood // every refusal accounted for, in a few records
	}, 20*time.Second, 50*time.Millisecond, "refusals counted in the audit stream")
	require.Equal(t, 1, adminOK, "the admin's record is still in the stream")
	require.Less(t, viewerRecords, 30, "the flood is summarised, not one record per request")
}

// fmtSscan reads the count at the start of a summary's detail.
func fmtSscan(detail any, n *int) (int, error) {
	s, _ := detail.(string)
	return fmt.Sscanf(s, "%d more requests", n)
}
