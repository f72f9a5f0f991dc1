package beamclaw

import (
	"log/slog"
	"time"
)

// Event is an observability event: a name from the spec's table
// ("tool_call_start", "session_restored", ...) with attributes. Values in
// Attrs must already be scrubbed.
type Event struct {
	Name      string
	SessionID string
	Time      time.Time
	Attrs     []slog.Attr
}
