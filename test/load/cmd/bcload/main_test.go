package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRunAgainstFake points both -addr and -fake at one fake provider: the
// fake answers any model, so the whole report path runs.
func TestRunAgainstFake(t *testing.T) {
	srv := fakellm.New(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"plain text", []string{"-mode", "plain"}, []string{"mode plain", "direct", "beamclaw", "added"}},
		{"stream text", []string{"-mode", "stream"}, []string{"ttft", "added    "}},
		{"ephemeral json", []string{"-mode", "ephemeral", "-json"}, []string{`"mode": "ephemeral"`, `"added"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			args := append([]string{"-addr", srv.Addr(), "-fake", srv.URL(), "-n", "12", "-c", "3", "-users", "4", "-warmup", "3"}, tt.args...)
			if err := run(context.Background(), args, &out); err != nil {
				t.Fatalf("run: %v\n%s", err, out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestRunJSONShape(t *testing.T) {
	srv := fakellm.New(t)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-addr", "http://" + srv.Addr() + "/", "-n", "5", "-warmup", "0", "-json"}, &out); err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("decode %s: %v", out.String(), err)
	}
	if rep.Target.Latency.N != 5 || rep.Direct != nil || rep.Added != nil {
		t.Errorf("report = %+v; want 5 turns, no baseline", rep)
	}
}

func TestRunRejects(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"bad mode", []string{"-mode", "burst"}},
		{"stray argument", []string{"extra"}},
		{"missing binary", []string{"-mode", "coldstart", "-n", "1", "-bin", "/nonexistent/beamclaw"}},
		{"zero workers", []string{"-addr", "127.0.0.1:1", "-c", "0", "-warmup", "0"}},
		{"exec without a socket", []string{"-mode", "exec"}},
		{"exec with no daemon", []string{"-mode", "exec", "-socket", "/nonexistent/beamclaw.sock", "-scopes", "1", "-n", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := run(context.Background(), tt.args, &bytes.Buffer{}); err == nil {
				t.Errorf("run(%q) succeeded", tt.args)
			}
		})
	}
}
