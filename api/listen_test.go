package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A real server on 127.0.0.1:0, spoken to with net/http: heartbeat, 400 with
// the SPEC body, token login, graceful shutdown.
func TestListenRealHTTP(t *testing.T) {
	cfg := authConfig(t)
	cfg.BodyLimit = 4096
	h := newHarness(t, cfg)
	errc := make(chan error, 1)
	go func() { errc <- h.srv.Listen("127.0.0.1:0") }()
	require.Eventually(t, func() bool { return h.srv.Addr() != nil }, 5*time.Second, 5*time.Millisecond)
	base := "http://" + h.srv.Addr().String()
	var resp *http.Response
	require.Eventually(t, func() bool {
		var err error
		resp, err = http.Get(base + "/coord/v1/monitoring/health")
		return err == nil
	}, 5*time.Second, 10*time.Millisecond)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)

	post := func(path, body string, hdr ...string) (*http.Response, []byte) {
		req, err := http.NewRequest("POST", base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, b
	}

	resp, body := post(hbPath, hbBody)
	require.Equal(t, 200, resp.StatusCode, "%s", body)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var hr protocol.HeartbeatResponse
	require.NoError(t, json.Unmarshal(body, &hr))
	require.Equal(t, protocol.StatusOK, hr.Status)

	resp, body = post(hbPath, hb(`"ownedShards":[]`, `"ownedShards":`+shardList(1000, -1)))
	require.Equal(t, 400, resp.StatusCode)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	require.JSONEq(t, `{"status":"BAD_REQUEST","errorCode":"PAYLOAD_TOO_LARGE","message":"request body is larger than the server's body limit (http.body-limit)"}`, string(body))

	resp, body = post("/coord/v1/auth/login", `{"username":"admin","password":"admin-pass"}`)
	require.Equal(t, 200, resp.StatusCode)
	var lr protocol.LoginResponse
	require.NoError(t, json.Unmarshal(body, &lr))
	resp, body = post("/coord/v1/streams/orders", `{"requestedBy":"ops"}`, "Authorization", "Bearer "+lr.AccessToken)
	require.Equal(t, 201, resp.StatusCode, "%s", body)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, h.srv.Shutdown(ctx))
	select {
	case err := <-errc:
		require.True(t, err == nil || errors.Is(err, http.ErrServerClosed), "%v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("Listen did not return after Shutdown")
	}
	require.Equal(t, []string{"Health", "Heartbeat orders/workers/10.0.3.7-m0", "CreateStream orders"}, h.fake.Calls())
}

// Errors fasthttp raises before routing still get the SPEC body.
func TestRawProtocolErrors(t *testing.T) {
	h := newHarness(t, Config{})
	h.listen()
	addr := strings.TrimPrefix(h.base, "http://")
	send := func(raw string) (*http.Response, []byte) {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer conn.Close()
		_, err = conn.Write([]byte(raw))
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, b
	}
	check := func(resp *http.Response, body []byte, status int, code string) {
		t.Helper()
		require.Equal(t, status, resp.StatusCode, "%s", body)
		reply{status: resp.StatusCode, header: resp.Header, body: body}.errorBody(t)
		var e protocol.ErrorBody
		require.NoError(t, json.Unmarshal(body, &e))
		require.Equal(t, code, e.ErrorCode)
	}
	resp, body := send("GET /coord/v1/monitoring/health HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 10000) + "\r\n\r\n")
	check(resp, body, 431, protocol.CodeHeadersTooLarge)
	resp, body = send("GET /coord/v1/monitoring/health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n")
	check(resp, body, 400, protocol.CodeBadRequest)
	require.Empty(t, h.fake.Calls())
}
