package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

const execSchema = `{
  "type": "object",
  "properties": {
    "language": {"type": "string", "enum": ["python", "sh"], "description": "The script's language (with code)."},
    "code": {"type": "string", "minLength": 1, "description": "The script. Print only what the answer needs: the output is what comes back."},
    "skill": {"type": "string", "description": "Instead of language and code: run the saved sandbox script with this name."},
    "timeout_seconds": {"type": "integer", "minimum": 1, "description": "Kill the script and everything it started after this many seconds (capped by the configuration)."},
    "save_as": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,63}$", "description": "When the script succeeds (exit code 0), save it as a skill with this name, to run again with {\"skill\": name}."},
    "description": {"type": "string", "description": "With save_as: what the saved script does."}
  },
  "additionalProperties": false
}`

// ExecOptions configure the exec tool.
type ExecOptions struct {
	// SkillDirs returns an agent's skill directories, highest precedence
	// first: saved scripts are looked up in them in order, and save_as
	// writes to the first. Nil turns skill and save_as off.
	SkillDirs func(agentID string) []string
}

// ExecTool is the exec tool: it runs a script in the caller's sandbox.
type ExecTool struct {
	m    *Manager
	opts ExecOptions
	spec beamclaw.ToolSpec
}

var _ beamclaw.Tool = (*ExecTool)(nil)

// NewExecTool returns the exec tool after m.Check passed; otherwise the
// error says, for the user, why sandboxed execution is off and how to fix
// it (the daemon then leaves exec out and prints that; doctor shows it).
func NewExecTool(ctx context.Context, m *Manager, opts ExecOptions) (*ExecTool, error) {
	if err := m.Check(ctx); err != nil {
		return nil, err
	}
	var schema bytes.Buffer
	_ = json.Compact(&schema, []byte(execSchema)) // a constant
	return &ExecTool{m: m, opts: opts, spec: beamclaw.ToolSpec{
		Def: beamclaw.ToolDef{
			Name: ExecToolName, Description: execDescription(m.opts), Parameters: schema.Bytes(), Source: "sandbox",
		},
		RequiresApproval: false, // hardened; remote channels still ask (RiskHigh)
		MinAutonomy:      beamclaw.Supervised,
		Risk:             beamclaw.RiskHigh,
	}}, nil
}

func execDescription(o Options) string {
	var b strings.Builder
	b.WriteString("Run a Python or sh script in an isolated sandbox container and return its stdout, stderr, exit code and duration as JSON. ")
	b.WriteString("Use it to compute, transform data, or combine several tool calls in one step. ")
	b.WriteString("Python scripts can `import beamclaw_tools` and call search_tools(query), get_tool(name) and call_tool(name, {args}); ")
	b.WriteString("sh scripts can run `beamclaw-tools search|get|call NAME JSON`. /tools/index.txt lists the tools you may call (/tools/<name>/schema.json for arguments); ")
	b.WriteString("tool calls follow the same approvals as your own. ")
	if o.PII.Enabled {
		b.WriteString("Personal data in the script and in tool results appears as PII_<KIND>_<id> tokens; pass them to tools unchanged. ")
	}
	switch o.Network {
	case "none":
		b.WriteString("There is no network. ")
	default:
		b.WriteString("The network is reachable. ")
	}
	switch {
	case o.WorkspaceMount == "none" || o.Scope == ScopeShared:
	case o.WorkspaceMount == "ro":
		b.WriteString("The agent workspace is mounted read-only at /workspace (the working directory). ")
	default:
		b.WriteString("The agent workspace is mounted read-write at /workspace (the working directory). ")
	}
	fmt.Fprintf(&b, "Only /tmp is writable (64 MB, not executable); memory %s, CPU %s, timeout %s.",
		o.MemoryLimit, o.CPULimit, o.Timeout)
	return b.String()
}

// Spec implements beamclaw.Tool.
func (t *ExecTool) Spec() beamclaw.ToolSpec { return t.spec }

type execArgs struct {
	Language       string `json:"language"`
	Code           string `json:"code"`
	Skill          string `json:"skill"`
	TimeoutSeconds int    `json:"timeout_seconds"`
	SaveAs         string `json:"save_as"`
	Description    string `json:"description"`
}

// CallTimeout is the registry's deadline for a call (tool.TimeoutHinter):
// the run's own timeout plus a container start and the kill grace.
func (t *ExecTool) CallTimeout(raw []byte) time.Duration {
	var a execArgs
	_ = json.Unmarshal(raw, &a)
	d := t.m.opts.Timeout
	if a.TimeoutSeconds > 0 {
		d = min(d, time.Duration(a.TimeoutSeconds)*time.Second)
	}
	return d + startTimeout + 2*killGrace
}

// execOutput is the JSON the model sees.
type execOutput struct {
	ExitCode   int    `json:"exit_code"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	DurationMS int64  `json:"duration_ms"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	Killed     bool   `json:"killed,omitempty"`
	OOMKilled  bool   `json:"oom_killed,omitempty"`
	Truncated  bool   `json:"truncated,omitempty"`
	SavedSkill string `json:"saved_skill,omitempty"`
	SaveError  string `json:"save_error,omitempty"`
}

// Execute implements beamclaw.Tool.
func (t *ExecTool) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	const op = "exec"
	var a execArgs
	raw := inv.Args
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return "", beamclaw.E(op, beamclaw.KindInvalid, "invalid arguments: "+err.Error(), err)
	}
	s, err := t.script(inv.AgentID, a)
	if err != nil {
		return "", err
	}
	caller := Caller{SessionID: inv.SessionID, AgentID: inv.AgentID, UserID: inv.UserID,
		Channel: inv.Channel, Workspace: inv.Workspace}
	res, err := t.m.Run(ctx, caller, s)
	if err != nil {
		return "", err
	}
	out := execOutput{ExitCode: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr,
		DurationMS: res.Duration.Milliseconds(), TimedOut: res.TimedOut, Killed: res.Killed,
		OOMKilled: res.OOMKilled, Truncated: res.Truncated}
	if a.SaveAs != "" && res.ExitCode == 0 && !res.TimedOut {
		out.SavedSkill, out.SaveError = t.save(inv.AgentID, a, s)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("exec: encode result: %w", err)
	}
	return string(b), nil
}

// script turns the arguments into a Script (code, or a saved skill).
func (t *ExecTool) script(agent string, a execArgs) (Script, error) {
	const op = "exec"
	s := Script{Language: a.Language, Code: a.Code}
	if a.TimeoutSeconds > 0 {
		s.Timeout = time.Duration(a.TimeoutSeconds) * time.Second
	}
	switch {
	case a.Skill != "" && a.Code != "":
		return s, beamclaw.E(op, beamclaw.KindInvalid, "give either code or skill, not both", nil)
	case a.Skill != "":
		if t.opts.SkillDirs == nil {
			return s, beamclaw.E(op, beamclaw.KindInvalid, "saved scripts are not available here", nil)
		}
		sk, err := FindScriptSkill(t.opts.SkillDirs(agent), a.Skill)
		if err != nil {
			return s, err
		}
		s.Language, s.Code = sk.Language, sk.Code
	case a.Code == "":
		return s, beamclaw.E(op, beamclaw.KindInvalid, "code is required (or skill, to run a saved script)", nil)
	}
	return s, nil
}

// save stores a successful script; a failure is reported in the result,
// not as the tool's error (the run itself succeeded).
func (t *ExecTool) save(agent string, a execArgs, s Script) (name, problem string) {
	if t.opts.SkillDirs == nil {
		return "", "saving scripts is not available here"
	}
	dirs := t.opts.SkillDirs(agent)
	if len(dirs) == 0 {
		return "", "this agent has no skill directory"
	}
	_, err := SaveScriptSkill(dirs[0], ScriptSkill{Name: a.SaveAs, Description: a.Description,
		Language: s.Language, Code: t.m.opts.Scrub(s.Code)})
	if err != nil {
		return "", beamclaw.UserMessage(err)
	}
	return a.SaveAs, ""
}
