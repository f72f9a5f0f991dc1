package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// CallTool is the a2a_call tool: an agent delegates a question or a job to
// a peer of a2a.peers (one with a url) and gets its answer. It is high
// risk (it sends the agent's words to another party), so remote channels
// ask for approval before it runs.
type CallTool struct {
	peers  map[string]Peer
	names  []string
	caller *Caller
}

var _ beamclaw.Tool = (*CallTool)(nil)

// NewCallTool returns the tool over the peers that have a url; nil when
// none has one (there is nobody to call).
func NewCallTool(peers []Peer, log *slog.Logger) *CallTool {
	t := &CallTool{peers: map[string]Peer{}, caller: NewCaller(log)}
	for _, p := range peers {
		if p.URL != "" {
			t.peers[p.Name] = p
			t.names = append(t.names, p.Name)
		}
	}
	if len(t.names) == 0 {
		return nil
	}
	slices.Sort(t.names)
	return t
}

type callArgs struct {
	Peer      string `json:"peer"`
	Message   string `json:"message"`
	TaskID    string `json:"task_id"`
	ContextID string `json:"context_id"`
	Stream    bool   `json:"stream"`
}

// Spec implements beamclaw.Tool.
func (t *CallTool) Spec() beamclaw.ToolSpec {
	names, _ := json.Marshal(t.names)
	schema := `{"type":"object","properties":{` +
		`"peer":{"type":"string","enum":` + string(names) + `,"description":"The peer agent to ask."},` +
		`"message":{"type":"string","minLength":1,"description":"What to ask or tell it, self-contained: it does not see this conversation."},` +
		`"task_id":{"type":"string","description":"Only to answer a peer that asked for input: the task_id it gave."},` +
		`"context_id":{"type":"string","description":"Continue an earlier conversation with this peer: the context_id of its last answer."},` +
		`"stream":{"type":"boolean","description":"Stream the answer (for long jobs). Default false."}},` +
		`"required":["peer","message"],"additionalProperties":false}`
	return beamclaw.ToolSpec{
		Def: beamclaw.ToolDef{Name: "a2a_call", Source: "a2a", Parameters: json.RawMessage(schema),
			Description: "Delegate to another agent over the A2A protocol and return its answer. Peers: " +
				strings.Join(t.names, ", ") + ". The peer may answer, fail, or ask for input (then answer with task_id)."},
		MinAutonomy: beamclaw.Supervised,
		Risk:        beamclaw.RiskHigh,
	}
}

// Execute implements beamclaw.Tool.
func (t *CallTool) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	var a callArgs
	if err := json.Unmarshal(orEmpty(inv.Args), &a); err != nil {
		return "", fmt.Errorf("a2a_call: invalid arguments: %w", err)
	}
	p, ok := t.peers[a.Peer]
	switch {
	case !ok:
		return "", fmt.Errorf("a2a_call: no peer %q; peers: %s", a.Peer, strings.Join(t.names, ", "))
	case strings.TrimSpace(a.Message) == "":
		return "", fmt.Errorf("a2a_call: the message is empty")
	}
	r, err := t.caller.Send(ctx, Target{URL: p.URL, Token: p.Token},
		Request{Text: a.Message, TaskID: a.TaskID, ContextID: a.ContextID, Stream: a.Stream}, nil)
	if err != nil {
		return "", fmt.Errorf("a2a_call %s: %w", p.Name, err)
	}
	return describe(p.Name, r)
}

// describe is the tool's output: the answer, or what happened instead.
func describe(peer string, r Reply) (string, error) {
	ids := fmt.Sprintf("(task_id %s, context_id %s)", r.TaskID, r.ContextID)
	switch r.State {
	case "completed":
		return fmt.Sprintf("%s answered %s:\n%s", peer, ids, r.Text), nil
	case "input-required", "auth-required":
		return fmt.Sprintf("%s needs input %s: %s\nTo answer, call a2a_call again with this task_id and your reply.", peer, ids, r.Text), nil
	}
	return "", fmt.Errorf("%s ended the task %s as %s: %s", peer, ids, r.State, r.Text)
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}
