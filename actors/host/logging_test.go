package host

import (
	"bytes"
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
		emit(t0.Add(time.Duration(i)*2*time.Second), slog.LevelError, "Bad connection to the node health status")
	}
	emit(t0.Add(time.Second), slog.LevelError, "EndpointWriter failed to connect")
	emit(t0.Add(repeatEvery+time.Second), slog.LevelError, "Bad connection to the node health status")
	out := buf.String()
	require.Equal(t, 2, strings.Count(out, "Bad connection"), out)
	require.Contains(t, out, "repeatsDropped=9")
	require.Equal(t, 1, strings.Count(out, "EndpointWriter failed"))
	require.False(t, log.Enabled(t.Context(), slog.LevelInfo), "dead-letter INFO lines stay out")
}
