package api

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A client connection that never sends a request does not hold Shutdown up
// (it held it until the 30 s read timeout), and a request sent on a fresh
// connection just after Shutdown began is still answered.
func TestShutdownDoesNotWaitForUnusedConnections(t *testing.T) {
	h := newHarness(t, authConfig(t))
	errc := make(chan error, 1)
	go func() { errc <- h.srv.Listen("127.0.0.1:0") }()
	require.Eventually(t, func() bool { return h.srv.Addr() != nil }, 5*time.Second, 5*time.Millisecond)
	addr := h.srv.Addr().String()
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + "/coord/v1/monitoring/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	}, 5*time.Second, 10*time.Millisecond)

	unused, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer unused.Close()
	late, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer late.Close()
	require.Eventually(t, func() bool { return h.srv.ln.Load().Tracked() == 2 }, 5*time.Second, 5*time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- h.srv.Shutdown(ctx) }()
	require.Eventually(t, func() bool { // Shutdown began: the port is closed
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err != nil
	}, 5*time.Second, time.Millisecond)
	_, err = late.Write([]byte("GET /coord/v1/monitoring/health HTTP/1.1\r\nHost: x\r\n\r\n"))
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(late), nil)
	require.NoError(t, err, "a request sent within the grace after Shutdown began is answered")
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)

	select {
	case err := <-done:
		require.NoError(t, err)
		require.Less(t, time.Since(start), 5*time.Second, "Shutdown waited on the unused connection")
	case <-time.After(15 * time.Second):
		t.Fatal("Shutdown still waits on a connection that never sent a request")
	}
	err = <-errc
	require.True(t, err == nil || errors.Is(err, http.ErrServerClosed), "%v", err)
}
