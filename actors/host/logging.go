package host

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// minLevel drops records below min. The actor library logs every dead
// letter (a timer firing for an actor that just stopped, a reply to a caller
// that gave up) at INFO; those are expected during shutdown, failover and
// member churn and would drown the coordinator's own log lines.
//
// It also passes each distinct library message at most once per
// repeatEvery: the cluster libraries log the same line for every retry (a
// down seed's failed health poll every 2 s, a reconnect attempt to a dead
// node), which would bury the coordinator's own lines at 3 a.m. The first
// occurrence is kept; later ones within the window are counted and the next
// one that passes says how many were dropped.
//
// Lines the libraries log at ERROR in normal operation (libfilter.go) are
// dropped and counted.
type minLevel struct {
	slog.Handler
	min     slog.Level
	repeats *repeatFilter
	lib     *libFilter
}

// repeatEvery is how often one library message may repeat in the log.
const repeatEvery = 30 * time.Second

type repeatFilter struct {
	mu   sync.Mutex
	seen map[string]*repeatState
}

type repeatState struct {
	last    time.Time
	dropped int
}

func newMinLevel(h slog.Handler, min slog.Level) minLevel {
	return minLevel{Handler: h, min: min, repeats: &repeatFilter{seen: map[string]*repeatState{}}, lib: newLibFilter(time.Now())}
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) Handle(ctx context.Context, r slog.Record) error {
	if h.lib != nil {
		out, keep, rated := h.lib.filter(r)
		if !keep {
			return nil
		}
		if rated { // limited per peer already: not thinned again per message
			return h.Handler.Handle(ctx, out)
		}
	}
	if h.repeats != nil {
		dropped, pass := h.repeats.admit(r.Message, r.Time)
		if !pass {
			return nil
		}
		if dropped > 0 {
			r = r.Clone()
			r.AddAttrs(slog.Int("repeatsDropped", dropped))
		}
	}
	return h.Handler.Handle(ctx, r)
}

// admit reports whether msg may be logged at now, and how many copies were
// dropped since it last was.
func (f *repeatFilter) admit(msg string, now time.Time) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.seen[msg]
	if s == nil {
		if len(f.seen) > 1000 { // distinct messages are few; a flood of unique ones starts over
			f.seen = map[string]*repeatState{}
		}
		f.seen[msg] = &repeatState{last: now}
		return 0, true
	}
	if now.Sub(s.last) < repeatEvery {
		s.dropped++
		return 0, false
	}
	dropped := s.dropped
	s.last, s.dropped = now, 0
	return dropped, true
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.min, h.repeats, h.lib}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min, h.repeats, h.lib}
}
