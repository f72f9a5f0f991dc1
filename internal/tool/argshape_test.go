package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/tool"
)

func TestArgShape(t *testing.T) {
	tests := []struct {
		name string
		tool string
		args string
		want string
	}{
		{"sorted and compact", "bash", `{ "timeout_seconds": 5, "script": "ls -la" }`, `bash {"script":"ls -la","timeout_seconds":5}`},
		{"nested keys sorted", "curl", `{"url":"u","headers":{"b":"1","a":"2"}}`, `curl {"headers":{"a":"2","b":"1"},"url":"u"}`},
		{"numbers keep text", "x", `{"n":1.50}`, `x {"n":1.50}`},
		{"no HTML escaping", "bash", `{"script":"a && b > c"}`, `bash {"script":"a && b > c"}`},
		{"empty", "jq", ``, `jq {}`},
		{"null", "jq", `null`, `jq {}`},
		{"invalid kept", "x", `{"a":`, `x {"a":`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tool.ArgShape(tc.tool, json.RawMessage(tc.args)); got != tc.want {
				t.Errorf("ArgShape = %s, want %s", got, tc.want)
			}
		})
	}
	a := tool.ArgShape("bash", json.RawMessage(`{"script":"ls"}`))
	b := tool.ArgShape("bash", json.RawMessage(`{"script":"rm -rf /"}`))
	if a == b {
		t.Error("different scripts share a shape")
	}
}

func FuzzArgShape(f *testing.F) {
	f.Add(`{"b":1,"a":[{"d":2,"c":3}]}`)
	f.Add(`{"s":"\u00e9\n"}`)
	f.Fuzz(func(t *testing.T, args string) {
		s1 := tool.ArgShape("t", json.RawMessage(args))
		if !json.Valid([]byte(args)) {
			return
		}
		// Normalising is idempotent.
		if s2 := tool.ArgShape("t", json.RawMessage(s1[2:])); s2 != s1 {
			t.Errorf("not idempotent: %q then %q", s1, s2)
		}
	})
}
