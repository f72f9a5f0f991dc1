package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

const bashSchema = `{
  "type": "object",
  "properties": {
    "script": {"type": "string", "minLength": 1},
    "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 600, "description": "default 60"}
  },
  "required": ["script"],
  "additionalProperties": false
}`

const bashDesc = "Run a bash script in the workspace; returns stdout+stderr and [exit code: N]. No credentials in its environment."

// killGrace is added to a process tool's own timeout for the registry's
// deadline, so the tool reports the timeout (with partial output) itself.
const killGrace = 5 * time.Second

// Bash runs a script with bash -c.
type Bash struct{ opts ProcessOptions }

var _ beamclaw.Tool = (*Bash)(nil)

// NewBash returns the bash tool.
func NewBash(opts ProcessOptions) *Bash { return &Bash{opts: opts.withDefaults()} }

// Spec implements beamclaw.Tool.
func (b *Bash) Spec() beamclaw.ToolSpec {
	return spec("bash", bashDesc, bashSchema, true, beamclaw.Supervised, beamclaw.RiskHigh)
}

type bashArgs struct {
	Script         string `json:"script"`
	TimeoutSeconds int    `json:"timeout_seconds"`
}

func (b *Bash) timeout(secs int) time.Duration {
	if secs <= 0 {
		return b.opts.DefaultTimeout
	}
	return min(time.Duration(secs)*time.Second, b.opts.MaxTimeout)
}

// CallTimeout implements tool.TimeoutHinter.
func (b *Bash) CallTimeout(raw []byte) time.Duration {
	var a bashArgs
	_ = json.Unmarshal(raw, &a)
	return b.timeout(a.TimeoutSeconds) + killGrace
}

// Execute implements beamclaw.Tool.
func (b *Bash) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	var a bashArgs
	if err := decodeArgs("bash", inv.Args, &a); err != nil {
		return "", err
	}
	if a.Script == "" {
		return "", errors.New("bash: script is empty")
	}
	dir, err := workDir(inv.Workspace)
	if err != nil {
		return "", fmt.Errorf("bash: %w", err)
	}
	return runProcess(ctx, b.opts, []string{b.opts.Shell, "-c", a.Script}, dir, b.timeout(a.TimeoutSeconds))
}

// workDir checks the agent workspace exists and is a directory.
func workDir(ws string) (string, error) {
	if ws == "" {
		return "", errors.New("this run has no workspace directory")
	}
	fi, err := os.Stat(ws)
	if err != nil {
		return "", fmt.Errorf("workspace directory: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", ws)
	}
	return ws, nil
}
