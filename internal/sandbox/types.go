package sandbox

import (
	"context"
	"encoding/json"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Caller is who a run acts for: the session that called exec. Every tool
// call a script makes through the bridge carries its run's Caller, so a
// script never gets more than its session has.
type Caller struct {
	SessionID string
	AgentID   string
	UserID    string
	Channel   beamclaw.Channel // the run's channel (remote channels ask approval)
	Workspace string           // host path of the agent's workspace (mounted per WorkspaceMount)
}

// ToolInfo describes one tool to a script.
type ToolInfo struct {
	Name        string
	Description string
	Source      string          // "builtin", "mcp:<server>", ... (policy rules may match it)
	Schema      json.RawMessage // JSON Schema of the arguments
}

// Tools is what the bridge needs from the tool registry; the daemon
// implements it over the registry (built-ins and MCP) and the session's
// approval path. Both methods act for c only: List returns the tools c's
// session may use, and Call runs one with c's autonomy, approvals and
// remote-channel rules, exactly as if the model had called it (its error
// text is shown to the script). The sandbox policy is applied on top.
type Tools interface {
	List(ctx context.Context, c Caller) ([]ToolInfo, error)
	Call(ctx context.Context, c Caller, name string, args json.RawMessage) (string, error)
}

// Languages a script may be written in.
const (
	LangPython = "python"
	LangSh     = "sh"
)

// Script is one run's input.
type Script struct {
	Language string        // LangPython or LangSh
	Code     string        // the source; enters the container through the runner's stream, never argv
	Timeout  time.Duration // 0: Options.Timeout; larger values are capped at it
}

// Result is what a run produced. Stdout and Stderr are capped (a
// "[output truncated: N bytes omitted]" line marks a cut), scrubbed, and
// tokenized when PII.TokenizeResults is set.
type Result struct {
	Stdout    string
	Stderr    string
	ExitCode  int // 128+signal when killed
	Signal    int // the signal that ended the script, 0 when it exited
	Duration  time.Duration
	TimedOut  bool // killed (with its whole process group) at the timeout
	Killed    bool // killed because the caller's context ended
	OOMKilled bool // killed by the kernel for the memory limit
	Truncated bool
	Container string // the container's name
}
