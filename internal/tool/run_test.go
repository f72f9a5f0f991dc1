package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

func inv(args string) beamclaw.Invocation {
	return beamclaw.Invocation{Args: json.RawMessage(args), CallID: "call-1", AgentID: "main"}
}

func TestRunArguments(t *testing.T) {
	var calls atomic.Int32
	counting := newTool("echo", echoSchema, func(_ context.Context, inv beamclaw.Invocation) (string, error) {
		calls.Add(1)
		return string(inv.Args), nil
	})
	r := tool.New(tool.Options{})
	tests := []struct {
		name    string
		args    string
		want    string
		isError bool
		ran     bool
	}{
		{"valid", `{"text":"hi"}`, `{"text":"hi"}`, false, true},
		{"whitespace trimmed", ` {"text":"hi"} `, `{"text":"hi"}`, false, true},
		{"missing required", `{}`, `invalid arguments for tool echo: argument "text": required`, true, false},
		{"null is empty object", `null`, `invalid arguments for tool echo: argument "text": required`, true, false},
		{"wrong type", `{"text":3}`, `invalid arguments for tool echo: argument "text": must be a string, got number`, true, false},
		{"too short", `{"text":""}`, `invalid arguments for tool echo: argument "text": must be at least 1 characters long`, true, false},
		{"unknown argument", `{"text":"a","x":1}`, `invalid arguments for tool echo: argument "x": unknown argument (known: text)`, true, false},
		{"array", `["hi"]`, `invalid arguments for tool echo: arguments must be a JSON object`, true, false},
		{"string", `"hi"`, `invalid arguments for tool echo: arguments must be a JSON object`, true, false},
		{"broken JSON", `{"text":`, `invalid arguments for tool echo: arguments are not valid JSON`, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := calls.Load()
			res := r.Run(t.Context(), counting, inv(tc.args))
			want := beamclaw.ToolResult{ToolCallID: "call-1", Name: "echo", Content: tc.want, IsError: tc.isError}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if ran := calls.Load() != before; ran != tc.ran {
				t.Errorf("tool ran = %v, want %v", ran, tc.ran)
			}
		})
	}
}

func TestRunErrorAndPanic(t *testing.T) {
	r := tool.New(tool.Options{})
	failing := newTool("failing", "", func(context.Context, beamclaw.Invocation) (string, error) {
		return "", errors.New("disk on fire")
	})
	res := r.Run(t.Context(), failing, inv(`{}`))
	if !res.IsError || res.Content != "disk on fire" {
		t.Errorf("error result = %+v", res)
	}
	crashing := newTool("crashing", "", func(context.Context, beamclaw.Invocation) (string, error) {
		panic("boom")
	})
	res = r.Run(t.Context(), crashing, inv(`{}`))
	if !res.IsError || !strings.HasPrefix(res.Content, "tool crashing crashed: ") {
		t.Errorf("panic result = %+v", res)
	}
}

func TestRunTruncates(t *testing.T) {
	r := tool.New(tool.Options{MaxOutputBytes: 10})
	big := newTool("big", "", func(context.Context, beamclaw.Invocation) (string, error) {
		return strings.Repeat("x", 25), nil
	})
	res := r.Run(t.Context(), big, inv(`{}`))
	want := strings.Repeat("x", 10) + "\n[output truncated: 15 bytes omitted]"
	if res.Content != want || res.IsError {
		t.Errorf("content = %q, want %q", res.Content, want)
	}
}

func TestTruncateUTF8(t *testing.T) {
	got := tool.Truncate("aé", 2) // 'é' is two bytes; cutting inside it backs off
	if want := "a\n[output truncated: 2 bytes omitted]"; got != want {
		t.Errorf("Truncate = %q, want %q", got, want)
	}
	if got := tool.Truncate("short", 10); got != "short" {
		t.Errorf("Truncate kept = %q", got)
	}
}

func blockUntilDone(name string) *fnTool {
	return newTool(name, "", func(ctx context.Context, _ beamclaw.Invocation) (string, error) {
		<-ctx.Done()
		return "partial", ctx.Err()
	})
}

func TestRunTimeout(t *testing.T) {
	r := tool.New(tool.Options{Timeout: 20 * time.Millisecond})
	res := r.Run(t.Context(), blockUntilDone("slow"), inv(`{}`))
	if !res.IsError || !strings.Contains(res.Content, "tool slow timed out after 20ms") {
		t.Errorf("timeout result = %+v", res)
	}
}

// hinted asks for a longer timeout than the registry default.
type hinted struct{ *fnTool }

func (hinted) CallTimeout([]byte) time.Duration { return time.Hour }

func TestRunTimeoutHintCapped(t *testing.T) {
	r := tool.New(tool.Options{Timeout: 5 * time.Millisecond, MaxTimeout: 30 * time.Millisecond})
	res := r.Run(t.Context(), hinted{blockUntilDone("hinted")}, inv(`{}`))
	if !strings.Contains(res.Content, "timed out after 30ms") {
		t.Errorf("hinted timeout result = %+v", res)
	}
}

func TestRunCanceled(t *testing.T) {
	r := tool.New(tool.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res := r.Run(ctx, blockUntilDone("slow"), inv(`{}`))
	if !res.IsError || !strings.Contains(res.Content, "tool slow canceled") {
		t.Errorf("canceled result = %+v", res)
	}
}

func TestRunIgnoresContextButReturns(t *testing.T) {
	release := make(chan struct{})
	obstinate := newTool("obstinate", "", func(context.Context, beamclaw.Invocation) (string, error) {
		<-release
		return "late", nil
	})
	r := tool.New(tool.Options{Timeout: 10 * time.Millisecond})
	res := r.Run(t.Context(), obstinate, inv(`{}`))
	close(release) // lets the abandoned goroutine finish before goleak looks
	if !res.IsError || !strings.Contains(res.Content, "timed out") {
		t.Errorf("result = %+v", res)
	}
}

func TestRunBadSchema(t *testing.T) {
	r := tool.New(tool.Options{})
	res := r.Run(t.Context(), newTool("weird", `{"type":`, nil), inv(`{}`))
	if !res.IsError || !strings.Contains(res.Content, "unusable parameter schema") {
		t.Errorf("result = %+v", res)
	}
}
