package tool_test

import (
	"context"
	"encoding/json"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// fnTool is a Tool built from a function, for tests.
type fnTool struct {
	spec beamclaw.ToolSpec
	fn   func(ctx context.Context, inv beamclaw.Invocation) (string, error)
}

func (t *fnTool) Spec() beamclaw.ToolSpec { return t.spec }
func (t *fnTool) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	return t.fn(ctx, inv)
}

const echoSchema = `{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"],"additionalProperties":false}`

func newTool(name, schema string, fn func(context.Context, beamclaw.Invocation) (string, error)) *fnTool {
	return &fnTool{
		spec: beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: name, Description: name + " tool", Parameters: json.RawMessage(schema)}},
		fn:   fn,
	}
}

func echo(name string) *fnTool {
	return newTool(name, echoSchema, func(_ context.Context, inv beamclaw.Invocation) (string, error) {
		var a struct{ Text string }
		if err := json.Unmarshal(inv.Args, &a); err != nil {
			return "", err
		}
		return a.Text, nil
	})
}

// listSource is a Source whose tool list tests change at run time.
type listSource struct{ tools []beamclaw.Tool }

func (s *listSource) Tools() []beamclaw.Tool { return s.tools }
