package protocol

// ControlConsoleCode answers POST with a ConsoleCode. It is a route of
// the control socket only, never of the TCP listener.
const ControlConsoleCode = "/control/console/code"

// ConsoleCode answers POST /control/console/code (beamclaw console): a
// one-time code that signs a browser in to the web console at Path.
type ConsoleCode struct {
	Code      string `json:"code"`
	ExpiresAt string `json:"expires_at"` // RFC 3339
	Path      string `json:"path"`       // the login page, on the gateway's address
}
