package harness

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/redistest"
)

// A coordinator whose port another process holds is told apart: it exits
// with errPortTaken, and the holder's answers on that port are not taken
// for its own (it never printed its listening line).
func TestStartedTellsATakenPortApart(t *testing.T) {
	r := redistest.Start(t)
	held, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer held.Close()
	go func() { // an HTTP-ish holder that answers anything
		for {
			c, err := held.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
			_ = c.Close()
		}
	}()
	c := launchCoordinator(t, Options{RedisAddr: r.Addr(), Port: held.Addr().(*net.TCPAddr).Port})
	err = c.started()
	require.Error(t, err)
	require.True(t, errors.Is(err, errPortTaken), "%v", err)

	// A port the harness picks itself is picked again; the coordinator answers.
	ok := StartCoordinator(t, Options{RedisAddr: r.Addr()})
	require.True(t, strings.Contains(ok.Logs(), "coordinator listening on "+ok.URL()))
}
