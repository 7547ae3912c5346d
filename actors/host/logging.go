package host

import (
	"context"
	"log/slog"
)

// minLevel drops records below min. The actor library logs every dead
// letter (a timer firing for an actor that just stopped, a reply to a caller
// that gave up) at INFO; those are expected during shutdown, failover and
// member churn and would drown the coordinator's own log lines.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}
