package compat

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// Users of the compat coordinator, one per role the reference knows.
const (
	adminUser   = "ops" // ADMIN: everything
	adminPass   = "ops-password"
	monitorUser = "grafana" // MONITOR (= READ): the reference's dashboards and producers
	monitorPass = "grafana-password"
	memberUser  = "worker" // MEMBER: heartbeats and producer routing
	memberPass  = "worker-password"
	pyUser      = "py-worker" // MEMBER, used only by the Python member (its logins are counted)
	pyPass      = "py-worker-password"
)

// Fast timing so that a compat run takes seconds; the lease is 6 intervals.
var timing = map[string]string{
	"RSC_COORDINATION_HEARTBEAT_INTERVAL": "250ms",
	"RSC_COORDINATION_MEMBER_LEASE_TTL":   "1500ms",
	"RSC_COORDINATION_REBALANCE_TIMEOUT":  "3s",
}

type env struct {
	redis *redistest.Server
	coord *harness.Coordinator
	base  string
	http  *http.Client
}

// start runs a redis-server and a coordinator with auth on (member API
// included) and the reference's role names in its configuration.
func start(t *testing.T) *env { t.Helper(); return startWith(t, nil) }

// startWith is start with extra RSC_* settings (HTTPS, say) and, for an
// HTTPS front, the client configuration that trusts its certificate.
func startWith(t *testing.T, httpsClient *tls.Config, extra ...string) *env {
	t.Helper()
	r := redistest.Start(t)
	users, err := json.Marshal([]map[string]any{
		{"username": adminUser, "password": adminPass, "roles": []string{"ADMIN"}},
		{"username": monitorUser, "password": monitorPass, "roles": []string{"MONITOR"}},
		{"username": memberUser, "password": memberPass, "roles": []string{"MEMBER"}},
		{"username": pyUser, "password": pyPass, "roles": []string{"MEMBER"}},
	})
	require.NoError(t, err)
	settings := map[string]string{
		"RSC_AUTH_USERS":                   string(users),
		"RSC_AUTH_TOKEN_SECRET":            "compat-secret-0123456789",
		"RSC_AUTH_AUTHENTICATE_MEMBER_API": "true",
		// Few admin calls per principal: the rate-limit case hits it in a few requests.
		"RSC_AUTH_ADMIN_RATE_LIMIT": "0.2",
		"RSC_AUTH_ADMIN_RATE_BURST": "6",
	}
	for k, v := range timing {
		settings[k] = v
	}
	for i := 0; i+1 < len(extra); i += 2 {
		settings[extra[i]] = extra[i+1]
	}
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: r.Addr(), Env: settings, ClientTLS: httpsClient})
	return &env{redis: r, coord: coord, base: coord.URL(), http: coord.HTTPClient()}
}

// reply is one HTTP answer with its body decoded as generic JSON.
type reply struct {
	status int
	raw    []byte
	body   map[string]any
}

// call sends body (raw bytes, a value to encode, or nil) with the given
// Authorization header value and decodes the answer as a JSON object.
func (e *env) call(t *testing.T, method, path, authz string, body any) reply {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, e.base+path, rd)
	require.NoError(t, err)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	resp, err := e.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := reply{status: resp.StatusCode, raw: raw}
	if len(bytes.TrimSpace(raw)) > 0 {
		require.NoError(t, json.Unmarshal(raw, &r.body), "%s %s: %s", method, path, raw)
	}
	return r
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// hasFields fails unless obj carries every field (the reference's names).
func hasFields(t *testing.T, what string, obj map[string]any, fields ...string) {
	t.Helper()
	for _, f := range fields {
		require.Contains(t, obj, f, "%s lacks %q: %v", what, f, obj)
	}
}

func object(t *testing.T, v any, what string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	require.True(t, ok, "%s is not an object: %#v", what, v)
	return m
}

func array(t *testing.T, v any, what string) []any {
	t.Helper()
	a, ok := v.([]any)
	require.True(t, ok, "%s is not an array: %#v", what, v)
	return a
}

// shardIndexes reads [{"shardIndex":n},…].
func shardIndexes(t *testing.T, v any) []int {
	t.Helper()
	out := []int{}
	for _, s := range array(t, v, "shard list") {
		out = append(out, int(object(t, s, "shard")["shardIndex"].(float64)))
	}
	return out
}

// groupPath is /coord/v1/streams/{p}/groups/{g}, each name one escaped segment.
func groupPath(prefix, group string) string {
	return "/coord/v1/streams/" + url.PathEscape(prefix) + "/groups/" + url.PathEscape(group)
}

func monitorPath(prefix, group string) string {
	return "/coord/v1/monitoring/streams/" + url.PathEscape(prefix) + "/groups/" + url.PathEscape(group)
}

var requestSeq atomic.Int64

// rawMember speaks protocol v1 with hand-built JSON bodies, the way the
// reference's clients send them.
type rawMember struct {
	e        *env
	authz    string
	prefix   string
	group    string
	id       string
	epoch    int64
	metadata int64
}

// beat sends one heartbeat with the given ownedShards and, when not nil,
// revokingShards; it returns the decoded answer (HTTP 200 required) and
// adopts its epoch and metadataVersion.
func (m *rawMember) beat(t *testing.T, epoch int64, owned []int, revoking []map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{
		"protocolVersion":         1,
		"requestId":               fmt.Sprintf("compat-%d", requestSeq.Add(1)),
		"memberId":                m.id,
		"memberName":              "compat-" + m.group,
		"memberEpoch":             epoch,
		"rebalanceTimeoutMs":      3000, // the Kotlin client sends it; the coordinator's own setting wins
		"metadataVersion":         m.metadata,
		"runtimeConsumerCapacity": map[string]any{"runtimeMaxConcurrency": 2, "availableConcurrency": 2},
		"ownedShards":             shardList(owned),
	}
	if revoking != nil {
		body["revokingShards"] = revoking
	}
	r := m.e.call(t, "POST", groupPath(m.prefix, m.group)+"/members/"+url.PathEscape(m.id)+"/heartbeat", m.authz, body)
	require.Equal(t, 200, r.status, "%s", r.raw)
	if st := r.body["status"]; st == "OK" || st == "REVOKE_PENDING" || st == "SYNC_METADATA" {
		m.epoch = int64(r.body["memberEpoch"].(float64))
		m.metadata = int64(r.body["metadataVersion"].(float64))
	}
	return r.body
}

func assigned(t *testing.T, hb map[string]any) []int {
	return shardIndexes(t, object(t, hb["assignment"], "assignment")["assignedShards"])
}

func pending(t *testing.T, hb map[string]any) []int {
	return shardIndexes(t, object(t, hb["assignment"], "assignment")["pendingShards"])
}

func shardList(s []int) []map[string]any {
	out := make([]map[string]any, 0, len(s))
	for _, i := range s {
		out = append(out, map[string]any{"shardIndex": i})
	}
	return out
}
