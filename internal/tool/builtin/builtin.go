package builtin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// Options configure the standard tool set; each field goes to one tool's
// constructor. Zero values take each tool's defaults.
type Options struct {
	Process   ProcessOptions   // bash, terminal (tools.process.*)
	Files     FileOptions      // read_file, write_file, delete_file (tools.files.*)
	Curl      CurlOptions      // curl (tools.curl.*)
	JQ        JQOptions        // jq (tools.jq.*)
	WebSearch WebSearchOptions // web_search (tools.web_search.*)
	Memory    MemoryOptions    // workspace_memory; left out when Memory.Workspace is nil
	Skills    SkillOptions     // skill; left out when Skills.Reader is nil
}

// Defaults returns the standard built-in tools, sorted by name.
func Defaults(opts Options) []beamclaw.Tool {
	tools := []beamclaw.Tool{
		NewBash(opts.Process),
		NewCurl(opts.Curl),
		NewDeleteFile(opts.Files),
		NewJQ(opts.JQ),
		NewReadFile(opts.Files),
		NewTerminal(opts.Process),
		NewWebSearch(opts.WebSearch),
	}
	if opts.Memory.Workspace != nil {
		tools = append(tools, NewWorkspaceMemory(opts.Memory))
	}
	if opts.Skills.Reader != nil {
		tools = append(tools, NewSkill(opts.Skills))
	}
	tools = append(tools, NewWriteFile(opts.Files))
	return tools
}

// spec builds a builtin ToolSpec.
// DeferredByDefault reports whether an agent without
// core.agents.NAME.inline_tools gets the tool name behind tool_search
// rather than with every request: delete_file, jq and terminal, rarely
// needed or covered by another tool (bash does what terminal does), and
// tool_output, needed only after a cut result, whose note names it with
// its arguments (a call by name needs no search).
func DeferredByDefault(name string) bool {
	switch name {
	case "delete_file", "jq", "terminal", tool.OutputTool:
		return true
	}
	return false
}

func spec(name, desc, schema string, approval bool, minA beamclaw.Autonomy, risk beamclaw.Risk) beamclaw.ToolSpec {
	return beamclaw.ToolSpec{
		Def: beamclaw.ToolDef{
			Name:        name,
			Description: desc,
			Parameters:  compact(schema),
			Source:      "builtin",
		},
		RequiresApproval: approval,
		MinAutonomy:      minA,
		Risk:             risk,
	}
}

// compact strips the indentation of a schema literal for the wire.
func compact(schema string) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(schema)); err != nil {
		panic(fmt.Sprintf("builtin tool schema is not JSON: %v", err))
	}
	return buf.Bytes()
}

// decodeArgs unmarshals a call's arguments into dst with a clear error.
func decodeArgs(name string, raw json.RawMessage, dst any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s: invalid arguments: %w", name, err)
	}
	return nil
}

func orDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func orInt[T int | int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// IsShell reports whether the named built-in runs arbitrary commands on
// the host (bash, terminal): tools.bash.enabled: false removes both.
func IsShell(name string) bool { return name == "bash" || name == "terminal" }
