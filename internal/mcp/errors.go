package mcp

import "errors"

// Errors callers may check with errors.Is.
var (
	// ErrDisconnected: the connection died (process exited, transport
	// failed) while a request was in flight.
	ErrDisconnected = errors.New("server disconnected")
	// ErrNotConnected: the server is not ready (starting, restarting,
	// failed or disabled).
	ErrNotConnected = errors.New("server not connected")
	// ErrTimeout: the per-call or handshake timeout passed.
	ErrTimeout = errors.New("timed out")
	// ErrToolFailed: the server answered the call with isError set.
	ErrToolFailed = errors.New("tool reported an error")
	// ErrUnknownTool: no MCP tool of that name.
	ErrUnknownTool = errors.New("unknown mcp tool")
	// ErrToolChanged: the tool's definition differs from its pin; it is
	// disabled until accepted.
	ErrToolChanged = errors.New("tool definition changed since it was approved")
	// ErrFailed: the server used up its restart budget.
	ErrFailed = errors.New("restart budget exhausted")

	errCallTimeout = errors.New("mcp call timeout")
	errClosed      = errors.New("connection closed")
)
