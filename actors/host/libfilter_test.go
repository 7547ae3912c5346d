package host

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// peerLineLog is a library log whose filter started at t0 and counts what it drops.
func peerLineLog(t *testing.T, t0 time.Time) (*bytes.Buffer, minLevel, *countingLines) {
	t.Helper()
	var buf bytes.Buffer
	h := newMinLevel(slog.NewTextHandler(&buf, nil), slog.LevelWarn)
	h.lib = newLibFilter(t0)
	c := &countingLines{got: map[string]int{}}
	var lc lineCounter = c
	h.lib.counter.Store(&lc)
	return &buf, h, c
}

func emitAt(t *testing.T, h minLevel, at time.Time, level slog.Level, msg string, attrs ...slog.Attr) {
	t.Helper()
	r := slog.NewRecord(at, level, msg, 0)
	r.AddAttrs(attrs...)
	require.NoError(t, h.Handle(t.Context(), r))
}

// A peer's connection lines are dropped (and counted) while this node starts, after the peer
// left the member list, and while this node leaves; otherwise — a peer that crashed or is cut
// off — they are logged at WARN once per peer per minute, saying how many were dropped.
func TestPeerLinesAreKeptUnlessThePeerLeft(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	buf, h, c := peerLineLog(t, t0)
	connect := func(at time.Time, addr string) {
		emitAt(t, h, at, slog.LevelError, "EndpointWriter failed to connect",
			slog.String("address", addr), slog.Any("error", errors.New("connection refused")), slog.Int("retry", 0))
	}
	lost := func(at time.Time, addr string) {
		emitAt(t, h, at, slog.LevelError, "EndpointWriter lost connection", slog.String("address", addr), slog.Any("error", errors.New("EOF")))
	}
	p := h.lib.peers
	p.topology([]string{"id-a", "10.0.0.1:1", "id-b", "10.0.0.2:1", "id-c", "10.0.0.3:1"})

	connect(t0.Add(time.Second), "10.0.0.2:1") // nodes started together: not up yet
	require.Empty(t, buf.String())
	require.Equal(t, 1, c.got["error/peer-connect"])

	// After the start window: a peer still listed whose connection drops has crashed.
	at := t0.Add(peerStartWindow + time.Second)
	lost(at, "10.0.0.2:1")
	connect(at.Add(time.Second), "10.0.0.2:1")
	connect(at.Add(2*time.Second), "10.0.0.2:1")
	out := buf.String()
	require.Equal(t, 1, strings.Count(out, "level=WARN"), out)
	require.Contains(t, out, `msg="EndpointWriter lost connection"`)
	require.Contains(t, out, "address=10.0.0.2:1")
	require.NotContains(t, out, "level=ERROR")
	require.Equal(t, 3, c.got["error/peer-connect"], "the start-time line and the copies within the minute are counted")
	lost(at.Add(time.Second), "10.0.0.3:1") // another peer gets its own WARN
	require.Equal(t, 2, strings.Count(buf.String(), "level=WARN"), buf.String())
	connect(at.Add(peerWarnEvery), "10.0.0.2:1")
	require.Equal(t, 3, strings.Count(buf.String(), "level=WARN"), buf.String())
	require.Contains(t, buf.String(), "repeatsDropped=2")

	// A peer that left the member list before its connection dropped left gracefully.
	buf.Reset()
	p.topology([]string{"id-a", "10.0.0.1:1", "id-b", "10.0.0.2:1"})
	lost(at.Add(2*peerWarnEvery), "10.0.0.3:1")
	connect(at.Add(2*peerWarnEvery), "10.0.0.3:1")
	emitAt(t, h, at.Add(2*peerWarnEvery), slog.LevelWarn, "sendGossipForMember failed", slog.String("MemberId", "id-c"), slog.Any("error", errors.New("timeout")))
	require.Empty(t, buf.String())
	require.Equal(t, 1, c.got["warn/peer-gossip"])
	// …and once it is listed again (restarted on the same address), it is watched again.
	p.topology([]string{"id-a", "10.0.0.1:1", "id-b", "10.0.0.2:1", "id-c", "10.0.0.3:1"})
	lost(at.Add(3*peerWarnEvery), "10.0.0.3:1")
	require.Equal(t, 1, strings.Count(buf.String(), "level=WARN"), buf.String())

	// This node leaving: its peers stop with it.
	buf.Reset()
	p.leave()
	lost(at.Add(4*peerWarnEvery), "10.0.0.1:1")
	connect(at.Add(4*peerWarnEvery), "10.0.0.2:1")
	require.Empty(t, buf.String())
}

// A request that reached a grain's stale PID (dead letter) is retried by the library and by
// askCluster: dropped and counted. One that timed out is kept.
func TestGrainDeadLetterIsFilteredTimeoutKept(t *testing.T) {
	buf, h, c := peerLineLog(t, time.Now())
	log := slog.New(h)
	log.Error("cluster.RequestFuture failed", slog.Any("error", errors.New("future: dead letter")), slog.String("pid", "127.0.0.1:1/partition-activator/orders/workers$3"))
	require.Empty(t, buf.String())
	require.Equal(t, map[string]int{"error/grain-moved": 1}, c.got)
	log.Error("cluster.RequestFuture failed", slog.Any("error", errors.New("future: timeout")), slog.String("pid", "127.0.0.1:1/partition-activator/orders/workers$3"))
	require.Contains(t, buf.String(), "future: timeout")
}
