package protocol

// ControlHealth answers GET with Health, the body of GET /health (the
// admin API's health: GET /api/v1/health behind the gateway token).
const ControlHealth = "/control/health"

// Subsystem is the readiness of one part of the daemon.
type Subsystem struct {
	Ready  bool   `json:"ready"`
	Detail string `json:"detail,omitempty"`
}

// Health is the body of GET /health. Status is "ok" when every subsystem
// is ready and "degraded" otherwise; the HTTP status is 200 either way
// while the process lives (liveness), Ready tells readiness.
type Health struct {
	Status     string               `json:"status"`
	Ready      bool                 `json:"ready"`
	Version    string               `json:"version"`
	Subsystems map[string]Subsystem `json:"subsystems"`
}

// Status is the body of GET /control/status on the control socket.
type Status struct {
	PID           int                  `json:"pid"`
	Version       string               `json:"version"`
	Commit        string               `json:"commit,omitempty"`
	GoVersion     string               `json:"go_version"`
	StartedAt     string               `json:"started_at"`
	UptimeSeconds float64              `json:"uptime_seconds"`
	HTTPAddr      string               `json:"http_addr"`
	Socket        string               `json:"socket"`
	Home          string               `json:"home"`
	Subsystems    map[string]Subsystem `json:"subsystems"`
	// Warnings are what the daemon found wrong at start, as its own
	// environment sees it: providers without their key, agents without a
	// usable provider, keys that do nothing yet.
	Warnings []string `json:"warnings,omitempty"`
}

// Error is the JSON error body of beamclaw's own routes.
type Error struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail follows OpenAI's error object so that one shape serves the
// /v1 routes and the rest.
type ErrorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Code    *string `json:"code"`
	Param   *string `json:"param"`
}

// Check is one line of `beamclaw doctor`: Level is "ok", "warn" or
// "fail"; Fix says what to do when it is not ok.
type Check struct {
	Name   string `json:"name"`
	Level  string `json:"level"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}
