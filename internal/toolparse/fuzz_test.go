package toolparse

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// FuzzParse checks that Parse never panics and that every call it returns
// has a valid name, a JSON object for arguments and a unique id. Seeds are
// in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add("<tool_call><name>f</name><args>{}</args></tool_call>")
	f.Fuzz(func(t *testing.T, content string) {
		calls, text := Parse(beamclaw.Message{Role: beamclaw.RoleAssistant, Content: content})
		checkCalls(t, calls)
		if len(calls) == 0 && text != content {
			t.Fatalf("no calls but text changed: %q -> %q", content, text)
		}
		if len(text) > len(content)+MaxCalls {
			t.Fatalf("text grew: %d -> %d bytes", len(content), len(text))
		}
	})
}
