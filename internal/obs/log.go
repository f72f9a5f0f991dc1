package obs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// NewLogger builds the daemon's logger: format "text" or "json", level
// "debug", "info", "warn" or "error".
func NewLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, fmt.Errorf("log level %q: %w", level, err)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}

// LogBackend writes every event as one slog record named for the event.
type LogBackend struct {
	log *slog.Logger
}

// NewLogBackend returns a backend that logs to log.
func NewLogBackend(log *slog.Logger) *LogBackend {
	return &LogBackend{log: log.With("component", "obs")}
}

// Handle logs ev at info level (debug for per-state loop events).
func (l *LogBackend) Handle(ev beamclaw.Event) {
	level := slog.LevelInfo
	if ev.Name == "loop_state" {
		level = slog.LevelDebug
	}
	ctx := context.Background()
	if !l.log.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, len(ev.Attrs)+2)
	attrs = append(attrs, slog.String("event", string(ev.Name)))
	if ev.SessionID != "" {
		attrs = append(attrs, slog.String("session_id", ev.SessionID))
	}
	attrs = append(attrs, ev.Attrs...)
	l.log.LogAttrs(ctx, level, "event", attrs...)
}
