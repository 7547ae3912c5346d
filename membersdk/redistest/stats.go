package redistest

import (
	"context"
	"strconv"
	"strings"
)

// CommandCalls returns INFO commandstats as command -> calls (lower case, as
// Redis names them: "evalsha", "hset", "xgroup|create", ...). Use it to
// assert that something wrote nothing: ResetStats, act, then check that no
// write command (evalsha, eval, hset, ...) was called. Call it from the test
// goroutine.
func (s *Server) CommandCalls() map[string]int64 {
	s.t.Helper()
	info, err := s.Client().Info(context.Background(), "commandstats").Result()
	if err != nil {
		s.t.Fatalf("redistest: INFO commandstats: %v", err)
	}
	return parseCommandStats(info)
}

// ResetStats clears INFO commandstats (CONFIG RESETSTAT).
func (s *Server) ResetStats() {
	s.t.Helper()
	if err := s.Client().ConfigResetStat(context.Background()).Err(); err != nil {
		s.t.Fatalf("redistest: CONFIG RESETSTAT: %v", err)
	}
}

// parseCommandStats parses lines like
// "cmdstat_evalsha:calls=5000,usec=32321,usec_per_call=6.46,...".
func parseCommandStats(info string) map[string]int64 {
	out := map[string]int64{}
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":")
		if !ok || !strings.HasPrefix(line, "cmdstat_") {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(kv, "calls="); ok {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					out[name] = n
				}
			}
		}
	}
	return out
}
