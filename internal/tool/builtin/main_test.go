package builtin_test

import (
	"context"
	"encoding/json"
	"testing"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// call runs t through a real tool.Registry, as the loop does.
func call(t testing.TB, ctx context.Context, tl beamclaw.Tool, ws string, args any) beamclaw.ToolResult {
	t.Helper()
	return callWith(t, ctx, tool.New(tool.Options{}), tl, ws, args)
}

func callWith(t testing.TB, ctx context.Context, r *tool.Registry, tl beamclaw.Tool, ws string, args any) beamclaw.ToolResult {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	return r.Run(ctx, tl, beamclaw.Invocation{
		Args: json.RawMessage(raw), CallID: "c1", AgentID: "main", UserID: "local:ada", Channel: "tui", Workspace: ws,
	})
}

// mustOK fails unless res is a successful result and returns its content.
func mustOK(t testing.TB, res beamclaw.ToolResult) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s failed: %s", res.Name, res.Content)
	}
	return res.Content
}

// mustErr fails unless res is an error result and returns its content.
func mustErr(t testing.TB, res beamclaw.ToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("%s succeeded, want an error; content: %s", res.Name, res.Content)
	}
	return res.Content
}

func invocation(args []byte) beamclaw.Invocation {
	return beamclaw.Invocation{Args: args, CallID: "c1", AgentID: "main"}
}
