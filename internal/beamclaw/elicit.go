package beamclaw

import (
	"context"
	"encoding/json"
	"errors"
)

// Elicitation is a question a tool asks the user in the middle of a call
// (MCP elicitation/create): a message and a flat JSON Schema of the
// fields wanted (form mode), or a URL to open (url mode).
type Elicitation struct {
	ID      string          `json:"id"`
	Source  string          `json:"source"` // who asks: "mcp:<server>"
	Tool    string          `json:"tool,omitempty"`
	Message string          `json:"message"`
	Schema  json.RawMessage `json:"schema,omitempty"` // requestedSchema (form mode)
	URL     string          `json:"url,omitempty"`    // url mode: open it, then accept
}

// Elicitation answers.
const (
	ElicitAccept  = "accept"  // Content holds the fields
	ElicitDecline = "decline" // the user said no
	ElicitCancel  = "cancel"  // the user dismissed it without choosing
)

// ElicitAnswer is the user's answer to an Elicitation.
type ElicitAnswer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// ErrCannotAsk: nobody can answer a question on this run's route (the
// OpenAI-compatible API, a scheduled run); the Asker's error says why.
var ErrCannotAsk = errors.New("nobody can answer a question here")

// Asker puts an Elicitation to the person a run answers and waits for
// their answer. The loop puts one in the context of every tool call
// (WithAsker); a tool that needs to ask (an MCP server's elicitation)
// finds it there.
type Asker interface {
	Ask(ctx context.Context, e Elicitation) (ElicitAnswer, error)
}

type askerKey struct{}

// WithAsker returns ctx carrying a.
func WithAsker(ctx context.Context, a Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// AskerFrom returns the Asker of ctx, if any.
func AskerFrom(ctx context.Context) (Asker, bool) {
	a, ok := ctx.Value(askerKey{}).(Asker)
	return a, ok && a != nil
}
