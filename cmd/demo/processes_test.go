package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The demo's coordinator listens on a port of its own choosing; the demo
// reads the address from its listening line, and a coordinator that exits
// before printing one is reported with its log's path.
func TestWaitListeningLineReadsTheCoordinatorsAddress(t *testing.T) {
	d := &demo{ctx: context.Background()}
	log := filepath.Join(t.TempDir(), "coordinator.log")
	require.NoError(t, os.WriteFile(log, []byte("time=x level=INFO msg=\"starting coordinator\"\n"), 0o600))
	running := make(chan struct{})
	go func() {
		time.Sleep(100 * time.Millisecond)
		f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
		_, _ = f.WriteString("coordinator listening on http://127.0.0.1:41234\n")
		_ = f.Close()
	}()
	addr, err := d.waitListeningLine(log, running, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:41234", addr)

	exited := make(chan struct{})
	close(exited)
	log2 := filepath.Join(t.TempDir(), "coordinator.log")
	require.NoError(t, os.WriteFile(log2, []byte(`level=ERROR msg="cannot listen"`+"\n"), 0o600))
	_, err = d.waitListeningLine(log2, exited, 10*time.Second)
	require.ErrorContains(t, err, "exited at start")
	require.ErrorContains(t, err, log2)
}
