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

// A library line repeated every poll is logged once per repeatEvery, and the
// next copy says how many were dropped; other lines and levels pass.
func TestActorLogRepeatsAreThinned(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(newMinLevel(slog.NewTextHandler(&buf, nil), slog.LevelWarn))
	t0 := time.Unix(1_800_000_000, 0)
	emit := func(at time.Time, level slog.Level, msg string) {
		r := slog.NewRecord(at, level, msg, 0)
		require.NoError(t, log.Handler().Handle(t.Context(), r))
	}
	for i := 0; i < 10; i++ {
		emit(t0.Add(time.Duration(i)*2*time.Second), slog.LevelError, "Some library retry line")
	}
	emit(t0.Add(time.Second), slog.LevelError, "Other library line")
	emit(t0.Add(repeatEvery+time.Second), slog.LevelError, "Some library retry line")
	out := buf.String()
	require.Equal(t, 2, strings.Count(out, "Some library retry"), out)
	require.Contains(t, out, "repeatsDropped=9")
	require.Equal(t, 1, strings.Count(out, "Other library line"))
	require.False(t, log.Enabled(t.Context(), slog.LevelInfo), "dead-letter INFO lines stay out")
}

type countingLines struct{ got map[string]int }

func (c *countingLines) LibraryLineFiltered(level, kind string) { c.got[level+"/"+kind]++ }

// The library lines expected in normal operation are dropped and counted by level and kind;
// "Automanaged server stopping..!" only when the error is the clean close, not a failed start.
func TestExpectedLibraryLinesAreFilteredAndCounted(t *testing.T) {
	var buf bytes.Buffer
	h := newMinLevel(slog.NewTextHandler(&buf, nil), slog.LevelWarn)
	c := &countingLines{got: map[string]int{}}
	var lc lineCounter = c
	h.lib.counter.Store(&lc)
	log := slog.New(h)
	log.Error("Bad connection to the node health status", slog.String("autoManMemberUrl", "127.0.0.1:1"))
	log.Error("EndpointWriter failed to connect", slog.String("address", "127.0.0.1:2"))
	log.Error("Automanaged server stopping..!", slog.Any("error", errors.New("http: Server closed")))
	log.Error("Automanaged server stopping..!", slog.Any("error", errors.New("listen tcp :6330: bind: address already in use")))
	log.Error("EndpointReader failed to send ConnectResponse message", slog.Any("error", errors.New(`rpc error: code = Unknown desc = connection error: desc = "transport is closing"`)))
	log.Error("EndpointReader failed to send ConnectResponse message", slog.Any("error", errors.New("rpc error: code = Internal desc = something else")))
	out := buf.String()
	require.NotContains(t, out, "Bad connection")
	require.NotContains(t, out, "EndpointWriter")
	require.Equal(t, 1, strings.Count(out, "Automanaged server stopping"), out)
	require.Contains(t, out, "address already in use", "a failed start must stay an ERROR")
	require.Equal(t, 1, strings.Count(out, "EndpointReader failed to send ConnectResponse"), "only the closing transport is expected: %s", out)
	require.Contains(t, out, "something else")
	require.Equal(t, map[string]int{"error/peer-health-poll": 1, "error/peer-connect": 1, "error/health-server-closed": 1, "error/peer-lost": 1}, c.got)
}
