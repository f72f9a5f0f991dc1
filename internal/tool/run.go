package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"unicode/utf8"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Run executes one call of t and always returns a result, never panics:
// it checks the agent may use the tool, checks that inv.Args is a JSON
// object valid against the tool's schema (the tool does not run
// otherwise), applies the call timeout, turns an error or a panic into an
// IsError result and caps the content at Options.MaxOutputBytes.
//
// Run does not decide approval; the loop calls Decide first.
func (r *Registry) Run(ctx context.Context, t beamclaw.Tool, inv beamclaw.Invocation) beamclaw.ToolResult {
	spec := t.Spec()
	name := spec.Def.Name
	res := beamclaw.ToolResult{ToolCallID: inv.CallID, Name: name}
	content, err := r.run(ctx, t, spec, inv)
	if err != nil {
		res.IsError = true
		if content != "" {
			content += "\n"
		}
		content += err.Error()
	}
	res.Content = Truncate(content, r.opts.MaxOutputBytes)
	return res
}

func (r *Registry) run(ctx context.Context, t beamclaw.Tool, spec beamclaw.ToolSpec, inv beamclaw.Invocation) (string, error) {
	name := spec.Def.Name
	if inv.AgentID != "" && !r.Allowed(inv.AgentID, name) {
		return "", fmt.Errorf("tool %s is not enabled for agent %s", name, inv.AgentID)
	}
	args, err := normaliseArgs(inv.Args)
	if err != nil {
		return "", fmt.Errorf("invalid arguments for tool %s: %w", name, err)
	}
	inv.Args = args
	sch, err := r.schemas.get(spec.Def.Parameters)
	if err != nil {
		return "", fmt.Errorf("tool %s has an unusable parameter schema: %w", name, err)
	}
	if err := sch.ValidateJSON(args); err != nil {
		return "", fmt.Errorf("invalid arguments for tool %s: %w", name, err)
	}
	timeout := r.opts.Timeout
	if h, ok := t.(TimeoutHinter); ok {
		if d := h.CallTimeout(args); d > 0 {
			timeout = min(d, r.opts.MaxTimeout)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := r.execute(cctx, t, name, inv)
	if err != nil && cctx.Err() != nil {
		switch {
		case ctx.Err() != nil:
			return out, fmt.Errorf("tool %s canceled: %w", name, ctx.Err())
		case errors.Is(cctx.Err(), context.DeadlineExceeded):
			return out, fmt.Errorf("tool %s timed out after %s", name, timeout)
		}
	}
	return out, err
}

type outcome struct {
	out string
	err error
}

// execute runs the tool in its own goroutine so that a tool ignoring its
// context cannot hold the caller past the deadline; such a goroutine ends
// when the tool finally returns.
func (r *Registry) execute(ctx context.Context, t beamclaw.Tool, name string, inv beamclaw.Invocation) (string, error) {
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				r.opts.Logger.Error("tool panicked", "tool", name, "stack", string(debug.Stack()))
				done <- outcome{err: fmt.Errorf("tool %s crashed: %v", name, p)}
			}
		}()
		out, err := t.Execute(ctx, inv)
		done <- outcome{out: out, err: err}
	}()
	select {
	case o := <-done:
		return o.out, o.err
	case <-ctx.Done():
		select {
		case o := <-done:
			return o.out, o.err
		default:
			return "", ctx.Err()
		}
	}
}

// normaliseArgs accepts an empty or null argument value as {} and rejects
// anything that is not a single JSON object.
func normaliseArgs(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	if trimmed[0] != '{' {
		return nil, errors.New("arguments must be a JSON object")
	}
	if !json.Valid(trimmed) {
		return nil, errors.New("arguments are not valid JSON")
	}
	return trimmed, nil
}

// Truncate caps s at max bytes (cut at a UTF-8 boundary) and, when it cut,
// appends "\n[output truncated: N bytes omitted]".
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[output truncated: %d bytes omitted]", len(s)-cut)
}
