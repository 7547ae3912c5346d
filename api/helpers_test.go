package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redisstream/coordinator/api/httpx"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// logBuffer collects log output so tests can assert on what is (not) logged.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

type harness struct {
	t    *testing.T
	base string // set by listen: do() then goes over a real TCP connection
	srv  *Server
	fake *fakeService
	logs *logBuffer
	m    *metrics.Metrics
}

func newHarness(t testing.TB, cfg Config, opts ...Option) *harness {
	logs := &logBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := newFake()
	m := metrics.New()
	srv := New(cfg, f, append([]Option{WithMetrics(m), WithTokenGenerations(f)}, opts...)...)
	tt, _ := t.(*testing.T)
	return &harness{t: tt, srv: srv, fake: f, logs: logs, m: m}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) errorBody(t *testing.T) protocol.ErrorBody {
	t.Helper()
	require.Equal(t, "application/json", r.header.Get("Content-Type"), "body: %s", r.body)
	var e protocol.ErrorBody
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&e), "error body %s", r.body)
	require.Equal(t, httpx.StatusName(r.status), e.Status)
	require.NotEmpty(t, e.ErrorCode)
	require.NotEmpty(t, e.Message)
	return e
}

func (r reply) decode(t *testing.T, v any) {
	t.Helper()
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	require.NoError(t, json.Unmarshal(r.body, v), "body %s", r.body)
}

// do sends one request through app.Test. hdr is name, value, name, value….
func (h *harness) do(method, path, body string, hdr ...string) reply {
	h.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, "http://rsc.test/", rd)
	req.URL.Path = ""
	req.URL.RawPath = ""
	req.URL.Opaque = path // send the path exactly as given (escapes kept)
	req.RequestURI = ""
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	var resp *http.Response
	var err error
	if h.base != "" {
		req.URL, err = url.Parse(h.base + path)
		require.NoError(h.t, err)
		req.URL.Opaque = path
		resp, err = http.DefaultClient.Do(req)
	} else {
		resp, err = h.srv.App().Test(req, -1)
	}
	require.NoError(h.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// listen serves the harness on 127.0.0.1:0 until the test ends; do() then
// uses net/http. (app.Test cannot observe a 400: fasthttp reports the body
// limit as a connection error after writing the answer.)
func (h *harness) listen() {
	h.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(h.t, err)
	done := make(chan error, 1)
	go func() { done <- h.srv.Serve(ln) }()
	h.base = "http://" + ln.Addr().String()
	h.t.Cleanup(func() {
		// Idle keep-alive connections would hold Shutdown forever.
		http.DefaultClient.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(h.t, h.srv.Shutdown(ctx))
		require.NoError(h.t, <-done)
	})
}

// assertRejected checks a 4xx with the SPEC error body and code, and that
// the service saw no call.
func (h *harness) assertRejected(r reply, status int, code string) protocol.ErrorBody {
	h.t.Helper()
	require.Equal(h.t, status, r.status, "body: %s", r.body)
	e := r.errorBody(h.t)
	require.Equal(h.t, code, e.ErrorCode, "message: %s", e.Message)
	require.Empty(h.t, h.fake.Calls(), "service must not be called")
	return e
}

const hbPath = "/coord/v1/streams/orders/groups/workers/members/10.0.3.7-m0/heartbeat"

const hbBody = `{"protocolVersion":1,"requestId":"r-1","memberId":"10.0.3.7-m0","memberName":"orders-worker",
 "memberEpoch":0,"metadataVersion":0,
 "runtimeConsumerCapacity":{"runtimeMaxConcurrency":4,"availableConcurrency":4},
 "ownedShards":[],"revokingShards":[],"shardProgress":[]}`
