package compat

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/internal/tlsfiles/testca"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// pyState is what testdata/member.py writes after every heartbeat.
type pyState struct {
	Logins                int            `json:"logins"`
	Heartbeats            int            `json:"heartbeats"`
	Statuses              map[string]int `json:"statuses"`
	Seen                  []string       `json:"seen"`
	Acked                 int            `json:"acked"`
	IntervalMs            int            `json:"intervalMs"`
	HTTPErrors            []string       `json:"httpErrors"`
	Owned                 []int          `json:"owned"`
	Released              []int          `json:"released"`
	TokenExpiresInSeconds int            `json:"tokenExpiresInSeconds"`
}

// A member written like the reference's Python client (standard library
// only: urllib for HTTP, a minimal RESP client over a socket for Redis)
// consumes a stream next to a Go member: it logs in once and never again,
// heartbeats at heartbeatIntervalMs, reads and acks its shards, releases
// shards by omission and never sends revokingShards.
func TestPythonMember(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the Python member of the compatibility suite needs it (standard library only)")
	}
	runPythonMember(t, py, start(t), "")
}

// The same over HTTPS with a certificate of a private CA, which the Python
// member trusts through a CA bundle (ssl.create_default_context(cafile=…),
// as requests' verify=<bundle>); the Go member and the checks use it too.
func TestPythonMemberHTTPS(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the Python member of the compatibility suite needs it (standard library only)")
	}
	ca := testca.New(t, "compat HTTPS CA")
	f := ca.Write(t, t.TempDir(), "server", ca.Issue(t, "coordinator", testca.Options{}))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.CertPEM)
	e := startWith(t, &tls.Config{RootCAs: pool}, "RSC_HTTP_TLS_CERT_FILE", f.Cert, "RSC_HTTP_TLS_KEY_FILE", f.Key)
	require.True(t, strings.HasPrefix(e.base, "https://"), e.base)
	runPythonMember(t, py, e, f.CA)
}

func runPythonMember(t *testing.T, py string, e *env, caFile string) {
	admin := basic(adminUser, adminPass)
	r := e.call(t, "POST", "/coord/v1/streams/orders%3Av2", admin, map[string]any{"initialShardCount": 4, "requestedBy": "compat"})
	require.Equal(t, 201, r.status, "%s", r.raw)
	// The group (and its Redis consumer group on every shard) comes into
	// being with routing, before anything is produced.
	r = e.call(t, "GET", groupPath(prefix, group)+"/producer-routing", basic(monitorUser, monitorPass), nil)
	require.Equal(t, 200, r.status, "%s", r.raw)

	rdb := redis.NewClient(&redis.Options{Addr: e.redis.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	const messages = 40
	produce := func(from, to int) {
		for i := from; i < to; i++ {
			key := fmt.Sprint("order-", i)
			shard := protocol.Route(key, 4)
			_, err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: protocol.StreamKey(prefix, int(shard)), NoMkStream: true,
				Values: map[string]any{"seq": fmt.Sprint(i), "key": key}}).Result()
			require.NoError(t, err)
		}
	}
	produce(0, messages/2)

	dir := t.TempDir()
	statePath := filepath.Join(dir, "state.json")
	cmd := exec.Command(py, filepath.Join("testdata", "member.py"),
		"--base", e.base, "--user", pyUser, "--password", pyPass,
		"--prefix", prefix, "--group", group, "--member-id", "py 사용자:m0", "--member-name", "py-orders",
		"--redis", e.redis.Addr(), "--state", statePath, "--ca-file", caFile)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("python member output:\n%s", out.String())
		}
	})

	read := func() pyState {
		var s pyState
		b, err := os.ReadFile(statePath)
		if err == nil {
			_ = json.Unmarshal(b, &s)
		}
		return s
	}
	waitFor := func(what string, ok func(pyState) bool) pyState {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			select {
			case err := <-exited:
				t.Fatalf("python member exited while waiting for %s: %v\n%s", what, err, out.String())
			default:
			}
			if s := read(); ok(s) {
				return s
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("python member: %s not reached within 30s; state %+v\n%s", what, read(), out.String())
		return pyState{}
	}

	// Alone, it owns every shard and consumes what was produced.
	waitFor("all shards owned", func(s pyState) bool { return len(s.Owned) == 4 })
	produce(messages/2, messages)
	waitFor("every message seen", func(s pyState) bool { return len(s.Seen) >= messages })

	// A Go member joins; the Python member must release two shards by
	// omission (it never reports them REVOKED) for the Go member to get them.
	goMember := harness.NewClient(e.base)
	goMember.HTTP = e.http
	goMember.User, goMember.Password = memberUser, memberPass
	m := harness.NewMember(goMember, prefix, group, "go-m0")
	for i := 0; i < 200 && len(m.Shards()) < 2; i++ {
		m.Beat(t)
		time.Sleep(50 * time.Millisecond)
	}
	require.Len(t, m.Shards(), 2, "the Go member never got its half: the Python member did not release by omission (last answer %+v)", m.Last)
	st := waitFor("two shards released", func(s pyState) bool { return len(s.Owned) == 2 })
	for _, s := range m.Shards() {
		require.NotContains(t, st.Owned, s, "shard %d owned by both", s)
	}

	// The coordinator shows the Python member's progress with the
	// reference's row shape.
	r = e.call(t, "GET", monitorPath(prefix, group)+"/consumption", basic(monitorUser, monitorPass), nil)
	require.Equal(t, 200, r.status, "%s", r.raw)
	var pyRows int
	for _, row := range array(t, r.body["progress"], "progress") {
		row := object(t, row, "progress row")
		if row["memberId"] == "py 사용자:m0" {
			pyRows++
			require.Equal(t, "py-orders", row["memberName"])
			require.Equal(t, "ACTIVE", row["memberState"])
			require.Equal(t, prefix, row["streamPrefix"])
		}
	}
	require.Positive(t, pyRows, "no consumption row of the Python member: %s", r.raw)

	// Stop it and check what it did.
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		require.NoError(t, err, out.String())
	case <-time.After(10 * time.Second):
		t.Fatalf("python member did not stop on SIGTERM\n%s", out.String())
	}
	st = read()
	require.Equal(t, 1, st.Logins, "logs in once and never again")
	require.Equal(t, 7*24*3600, st.TokenExpiresInSeconds)
	require.Empty(t, st.HTTPErrors, "no 401 or other HTTP error on its one token")
	require.Equal(t, 250, st.IntervalMs, "heartbeats at the coordinator's heartbeatIntervalMs")
	require.Positive(t, st.Statuses["OK"])
	require.ElementsMatch(t, m.Shards(), st.Released, "released exactly the Go member's shards")
	seen := append([]string(nil), st.Seen...)
	sort.Strings(seen)
	want := make([]string, messages)
	for i := range want {
		want[i] = fmt.Sprint(i)
	}
	sort.Strings(want)
	require.Equal(t, want, seen, "every message exactly once")
	require.Equal(t, messages, st.Acked)
	for s := 0; s < 4; s++ {
		p, err := rdb.XPending(ctx, protocol.StreamKey(prefix, s), group).Result()
		require.NoError(t, err)
		require.Zero(t, p.Count, "shard %d has unacknowledged messages", s)
	}
	// Server side: one login by the Python member's user in the coordinator log.
	logins := strings.Count(e.coord.Logs(), `msg=login ip=127.0.0.1 user=`+pyUser+` `)
	require.Equal(t, 1, logins, "coordinator saw %d logins by %s", logins, pyUser)
	require.Contains(t, e.coord.Logs(), `msg=login ip=127.0.0.1 user=`+pyUser+` roles=[MEMBER]`)
}
