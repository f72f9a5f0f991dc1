package builtin

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

const terminalSchema = `{
  "type": "object",
  "properties": {
    "command": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "argv, no shell"},
    "cwd": {"type": "string", "description": "relative to the workspace"}
  },
  "required": ["command"],
  "additionalProperties": false
}`

const terminalDesc = "Run one program with arguments (no shell); returns stdout+stderr and [exit code: N]."

// Terminal runs one command as argv, without a shell.
type Terminal struct{ opts ProcessOptions }

var _ beamclaw.Tool = (*Terminal)(nil)

// NewTerminal returns the terminal tool.
func NewTerminal(opts ProcessOptions) *Terminal { return &Terminal{opts: opts.withDefaults()} }

// Spec implements beamclaw.Tool.
func (t *Terminal) Spec() beamclaw.ToolSpec {
	return spec("terminal", terminalDesc, terminalSchema, true, beamclaw.Supervised, beamclaw.RiskHigh)
}

// CallTimeout implements tool.TimeoutHinter.
func (t *Terminal) CallTimeout([]byte) time.Duration { return t.opts.DefaultTimeout + killGrace }

// Execute implements beamclaw.Tool.
func (t *Terminal) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	var a struct {
		Command []string `json:"command"`
		Cwd     string   `json:"cwd"`
	}
	if err := decodeArgs("terminal", inv.Args, &a); err != nil {
		return "", err
	}
	if len(a.Command) == 0 || a.Command[0] == "" {
		return "", errors.New("terminal: command must name a program")
	}
	ws, err := workDir(inv.Workspace)
	if err != nil {
		return "", fmt.Errorf("terminal: %w", err)
	}
	dir, err := confinedDir(ws, a.Cwd)
	if err != nil {
		return "", fmt.Errorf("terminal: %w", err)
	}
	return runProcess(ctx, t.opts, a.Command, dir, t.opts.DefaultTimeout)
}

// confinedDir resolves rel against ws, following symlinks, and fails when
// the result is not ws or below it.
func confinedDir(ws, rel string) (string, error) {
	base, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return "", fmt.Errorf("workspace directory: %w", err)
	}
	if rel == "" || rel == "." {
		return base, nil
	}
	if filepath.IsAbs(rel) || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("cwd %q must be a relative path inside the workspace", rel)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(base, rel))
	if err != nil {
		return "", fmt.Errorf("cwd %q: %w", rel, err)
	}
	if real != base && !strings.HasPrefix(real, base+string(filepath.Separator)) {
		return "", fmt.Errorf("cwd %q escapes the workspace", rel)
	}
	return real, nil
}
