package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct {
		name, server, tool, want string
	}{
		{"plain", "everything", "echo", "everything__echo"},
		{"hyphens kept", "fs", "read-file", "fs__read-file"},
		{"dot replaced and hashed", "fs", "read.file", "fs__read_file_" + hash8("fs__read.file")},
		{"space in server", "my server", "x", "my_server__x_" + hash8("my server__x")},
		{"too long", "s", long, ("s__" + long)[:55] + "_" + hash8("s__"+long)},
		{"unicode", "s", "héllo", "s__h_llo_" + hash8("s__héllo")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ToolName(tc.server, tc.tool)
			if got != tc.want {
				t.Errorf("ToolName = %q, want %q", got, tc.want)
			}
			if !ValidToolName(got) {
				t.Errorf("%q is not a valid function name", got)
			}
		})
	}
	if ToolName("fs", "read.file") == ToolName("fs", "read_file") {
		t.Error("lossy sanitization collides with the clean name")
	}
}

func hash8(raw string) string { return shaHex(raw)[:8] }

func FuzzToolName(f *testing.F) {
	for _, s := range []string{"echo", "a.b", "", "ünï", strings.Repeat("z", 100)} {
		f.Add("srv", s)
	}
	f.Fuzz(func(t *testing.T, server, tool string) {
		if got := ToolName(server, tool); !ValidToolName(got) {
			t.Fatalf("ToolName(%q, %q) = %q: invalid", server, tool, got)
		}
	})
}

func TestBudget(t *testing.T) {
	p := RestartPolicy{}.withDefaults()
	t0 := time.Unix(1_000_000, 0)
	tests := []struct {
		name      string
		at        []time.Duration // failure times after t0
		wantDelay time.Duration   // of the last failure
		wantDone  bool
	}{
		{"first failure", []time.Duration{0}, 500 * time.Millisecond, false},
		{"doubling", []time.Duration{0, 1, 2}, 2 * time.Second, false},
		{"five in window still restart", []time.Duration{0, 1, 2, 3, 4}, 8 * time.Second, false},
		{"sixth in window gives up", []time.Duration{0, 1, 2, 3, 4, 5}, 0, true},
		{"old failures expire", []time.Duration{0, 1, 2, 3, 4, 40}, 10 * time.Second, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBudget(p)
			var (
				delay time.Duration
				done  bool
			)
			for _, at := range tc.at {
				delay, done = b.fail(t0.Add(at * time.Second))
			}
			if delay != tc.wantDelay || done != tc.wantDone {
				t.Errorf("got (%v, %v), want (%v, %v)", delay, done, tc.wantDelay, tc.wantDone)
			}
		})
	}
	b := newBudget(p)
	b.fail(t0)
	b.fail(t0.Add(time.Second))
	b.healthy()
	if d, _ := b.fail(t0.Add(2 * time.Second)); d != p.BackoffBase {
		t.Errorf("after healthy, backoff = %v, want %v", d, p.BackoffBase)
	}
}

func TestDefinitionHash(t *testing.T) {
	a := DefinitionHash("echo", "d", json.RawMessage(`{"type":"object","properties":{"m":{"type":"string"}}}`))
	b := DefinitionHash("echo", "d", json.RawMessage("{ \"properties\": {\"m\": {\"type\": \"string\"}},\n \"type\": \"object\" }"))
	if a != b {
		t.Error("formatting or key order changed the hash")
	}
	for name, h := range map[string]string{
		"description": DefinitionHash("echo", "d2", json.RawMessage(`{"type":"object","properties":{"m":{"type":"string"}}}`)),
		"schema":      DefinitionHash("echo", "d", json.RawMessage(`{"type":"object","properties":{"m":{"type":"number"}}}`)),
		"name":        DefinitionHash("echo2", "d", json.RawMessage(`{"type":"object","properties":{"m":{"type":"string"}}}`)),
	} {
		if h == a {
			t.Errorf("a changed %s kept the hash", name)
		}
	}
}

func TestFormatResult(t *testing.T) {
	tests := []struct {
		name string
		res  *mcpgo.CallToolResult
		want string
	}{
		{"nil", nil, ""},
		{"texts joined", &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent("a"), mcpgo.NewTextContent("b")}}, "a\nb"},
		{"image", &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewImageContent("AAAA", "image/png")}}, "[image image/png, 4 bytes base64]"},
		{"text resource", &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewEmbeddedResource(
			mcpgo.TextResourceContents{URI: "file:///a", Text: "body"})}}, "[resource file:///a]\nbody"},
		{"blob resource", &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewEmbeddedResource(
			mcpgo.BlobResourceContents{URI: "file:///b", MIMEType: "application/gzip", Blob: "AAAAAA=="})}},
			"[resource file:///b: application/gzip, 8 bytes base64]"},
		{"link", &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewResourceLink("file:///c", "c", "", "")}}, "[resource link file:///c c]"},
		{"structured only", &mcpgo.CallToolResult{StructuredContent: map[string]int{"n": 1}}, `{"n":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := FormatResult(tc.res); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestServerEnvIsMinimal(t *testing.T) {
	t.Setenv("BEAMCLAW_TEST_SECRET", "s3cret")
	t.Setenv("PATH", "/usr/bin")
	env := serverEnv(map[string]string{"API_TOKEN": "tok", "PATH": "/opt/bin"})
	joined := strings.Join(env, "\n")
	if strings.Contains(joined, "s3cret") {
		t.Error("daemon environment leaked into the server's")
	}
	for _, want := range []string{"API_TOKEN=tok", "PATH=/opt/bin"} {
		if !strings.Contains(joined, want) {
			t.Errorf("env lacks %s: %v", want, env)
		}
	}
	if strings.Contains(joined, "PATH=/usr/bin") {
		t.Error("configured PATH did not replace the inherited one")
	}
}
