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

// Handle logs ev at info level, or at debug when it is one of the
// routine steps of a turn that went well: one turn then writes a single
// info line (the gateway's access line, or nothing for a channel message),
// and anything that failed or changed state stays visible at info.
func (l *LogBackend) Handle(ev beamclaw.Event) {
	level := slog.LevelInfo
	if routine(ev) {
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

// routine reports whether ev is a per-turn step that is logged at debug:
// the run's start, model and tool calls, its end and the sessions coming
// and going around it, when they did not fail.
func routine(ev beamclaw.Event) bool {
	switch ev.Name {
	case beamclaw.EventLoopState, beamclaw.EventAgentStart, beamclaw.EventLLMRequest,
		beamclaw.EventToolCallStart, beamclaw.EventSessionStart, beamclaw.EventSessionRestored,
		beamclaw.EventSessionHibernated, beamclaw.EventA2ARequest, beamclaw.EventA2ATaskUpdated:
		return true
	case beamclaw.EventLLMResponse, beamclaw.EventToolCallResult, beamclaw.EventTurnComplete, beamclaw.EventMCPCall:
		return succeeded(ev)
	}
	return false
}

// succeeded reports whether ev carries success=true.
func succeeded(ev beamclaw.Event) bool {
	for _, a := range ev.Attrs {
		if a.Key == "success" {
			return a.Value.Kind() == slog.KindBool && a.Value.Bool()
		}
	}
	return false
}
