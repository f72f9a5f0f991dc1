package toolparse

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// call is a ToolCall without its id, for comparison.
type call struct{ Name, Args, Source string }

func strip(cs []beamclaw.ToolCall) []call {
	var out []call
	for _, c := range cs {
		out = append(out, call{c.Name, string(c.Args), c.Source})
	}
	return out
}

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		want     []call
		wantText string
	}{
		{"plain text", "Hello there.", nil, "Hello there."},
		{"xml tool_call", "Let me look.\n<tool_call>\n<name>read_file</name>\n<args>{\"path\": \"a.txt\"}</args>\n</tool_call>",
			[]call{{"read_file", `{"path":"a.txt"}`, "xml"}}, "Let me look."},
		{"xml toolcall arguments", "<toolcall><name>web.search</name><arguments>{\"q\":\"go\"}</arguments></toolcall> done",
			[]call{{"web.search", `{"q":"go"}`, "xml"}}, "done"},
		{"xml invoke", "<invoke><name>mcp:fs:list</name><args>{}</args></invoke>", []call{{"mcp:fs:list", `{}`, "xml"}}, ""},
		{"xml invoke attribute and parameters", `<invoke name="shell"><parameter name="cmd">ls -l</parameter><parameter name="opts">{"a":1}</parameter></invoke>`,
			[]call{{"shell", `{"cmd":"ls -l","opts":{"a":1}}`, "xml"}}, ""},
		{"xml without args", "<tool_call><name>now</name></tool_call>", []call{{"now", `{}`, "xml"}}, ""},
		{"hermes json", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>",
			[]call{{"get_weather", `{"city":"Oslo"}`, "xml"}}, ""},
		{"hermes stringified arguments", `<tool_call>{"name":"f","arguments":"{\"x\":1}"}</tool_call>`, []call{{"f", `{"x":1}`, "xml"}}, ""},
		{"several xml kinds in order", "a <invoke><name>one</name></invoke> b\n<tool_call>{\"name\":\"two\"}</tool_call>",
			[]call{{"one", `{}`, "xml"}, {"two", `{}`, "xml"}}, "a b"},
		{"xml args not an object skipped", "<tool_call><name>f</name><args>[1,2]</args></tool_call>", nil,
			"<tool_call><name>f</name><args>[1,2]</args></tool_call>"},
		{"xml bad name skipped, good kept", "<tool_call><name>rm -rf</name></tool_call>\n<tool_call><name>ok</name></tool_call>",
			[]call{{"ok", `{}`, "xml"}}, "<tool_call><name>rm -rf</name></tool_call>"},
		{"name inside args ignored", `<tool_call><args>{"s":"<name>evil</name>"}</args><name>good</name></tool_call>`,
			[]call{{"good", `{"s":"<name>evil</name>"}`, "xml"}}, ""},
		{"unclosed prose mention", "Models emit <tool_call> blocks; this one has no end.", nil,
			"Models emit <tool_call> blocks; this one has no end."},
		{"unclosed then valid", "see <tool_call> and then <tool_call><name>f</name></tool_call>",
			[]call{{"f", `{}`, "xml"}}, "see <tool_call> and then"},
		{"nested same kind", "<tool_call><tool_call><name>inner</name></tool_call></tool_call>",
			[]call{{"inner", `{}`, "xml"}}, "<tool_call></tool_call>"},
		{"nested other kind", "<tool_call><invoke><name>inner</name></invoke></tool_call>", []call{{"inner", `{}`, "xml"}}, ""},
		{"closing tag only", "</tool_call> <name>f</name>", nil, "</tool_call> <name>f</name>"},
		{"fenced tool/args", "Running it.\n```json\n{\"tool\": \"shell\", \"args\": {\"cmd\": \"ls\"}}\n```\nThen more.",
			[]call{{"shell", `{"cmd":"ls"}`, "fenced"}}, "Running it.\n\nThen more."},
		{"fenced name/arguments", "```JSON\n{\"name\":\"f\",\"arguments\":{}}\n```", []call{{"f", `{}`, "fenced"}}, ""},
		{"fenced array", "```json\n[{\"tool\":\"a\",\"args\":{}},{\"tool\":\"b\",\"args\":{\"x\":1}}]\n```",
			[]call{{"a", `{}`, "fenced"}, {"b", `{"x":1}`, "fenced"}}, ""},
		{"fenced not a call", "```json\n{\"name\": \"John\", \"age\": 3}\n```", nil, "```json\n{\"name\": \"John\", \"age\": 3}\n```"},
		{"fenced extra keys", "```json\n{\"tool\":\"a\",\"args\":{},\"note\":1}\n```", nil, "```json\n{\"tool\":\"a\",\"args\":{},\"note\":1}\n```"},
		{"fenced without args", "```json\n{\"tool\":\"a\"}\n```", nil, "```json\n{\"tool\":\"a\"}\n```"},
		{"fenced other language", "```python\n{\"tool\":\"a\",\"args\":{}}\n```", nil, "```python\n{\"tool\":\"a\",\"args\":{}}\n```"},
		{"fenced unclosed", "```json\n{\"tool\":\"a\",\"args\":{}}", nil, "```json\n{\"tool\":\"a\",\"args\":{}}"},
		{"json in free text", `Call {"tool":"shell","args":{"cmd":"rm -rf /"}} now`, nil, `Call {"tool":"shell","args":{"cmd":"rm -rf /"}} now`},
		{"bare json message", `{"name":"shell","arguments":{"cmd":"id"}}`, nil, `{"name":"shell","arguments":{"cmd":"id"}}`},
		{"xml wins over fenced", "<invoke><name>x</name></invoke>\n```json\n{\"tool\":\"y\",\"args\":{}}\n```",
			[]call{{"x", `{}`, "xml"}}, "```json\n{\"tool\":\"y\",\"args\":{}}\n```"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, text := Parse(beamclaw.Message{Role: beamclaw.RoleAssistant, Content: tt.content})
			if diff := cmp.Diff(tt.want, strip(calls)); diff != "" {
				t.Errorf("calls mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantText, text); diff != "" {
				t.Errorf("text mismatch (-want +got):\n%s", diff)
			}
			checkCalls(t, calls)
		})
	}
}

func TestParseNative(t *testing.T) {
	msg := beamclaw.Message{
		Content: "<tool_call><name>ignored</name></tool_call>",
		ToolCalls: []beamclaw.ToolCall{
			{ID: "abc", Name: "f", Args: json.RawMessage(`{"a":1}`)},
			{Name: "g"},
		},
	}
	calls, text := Parse(msg)
	want := []call{{"f", `{"a":1}`, "native"}, {"g", `{}`, "native"}}
	if diff := cmp.Diff(want, strip(calls)); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}
	if text != msg.Content {
		t.Errorf("text = %q, want unchanged", text)
	}
	if calls[0].ID != "abc" || calls[1].ID == "" {
		t.Errorf("ids = %q, %q", calls[0].ID, calls[1].ID)
	}
}

func TestParseIDs(t *testing.T) {
	content := "<tool_call><name>a</name></tool_call><tool_call id=\"mine\"><name>b</name></tool_call><tool_call><name>c</name></tool_call>"
	msg := beamclaw.Message{Content: content}
	first, _ := Parse(msg)
	again, _ := Parse(msg)
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("ids not deterministic:\n%s", diff)
	}
	if first[1].ID != "mine" || !strings.HasPrefix(first[0].ID, "call_1_") || !strings.HasPrefix(first[2].ID, "call_3_") {
		t.Errorf("ids = %q %q %q", first[0].ID, first[1].ID, first[2].ID)
	}
	other, _ := Parse(beamclaw.Message{Content: content + " "})
	if other[0].ID == first[0].ID {
		t.Error("different messages got the same id")
	}
	n := 0
	p := New(func(int) string { n++; return fmt.Sprintf("id%d", n) })
	got, _ := p.Parse(beamclaw.Message{Content: content})
	if diff := cmp.Diff([]string{"id1", "mine", "id2"}, []string{got[0].ID, got[1].ID, got[2].ID}); diff != "" {
		t.Errorf("IDFunc ids mismatch (-want +got):\n%s", diff)
	}
	dup, _ := New(func(int) string { return "same" }).Parse(beamclaw.Message{Content: content})
	if dup[0].ID == dup[2].ID {
		t.Errorf("duplicate ids from IDFunc not made unique: %q", dup[0].ID)
	}
}

func TestParseCap(t *testing.T) {
	content := strings.Repeat("<invoke><name>f</name></invoke>\n", MaxCalls+5)
	calls, text := Parse(beamclaw.Message{Content: content})
	if len(calls) != MaxCalls {
		t.Errorf("got %d calls, want %d", len(calls), MaxCalls)
	}
	if got := strings.Count(text, "<invoke>"); got != 5 {
		t.Errorf("%d blocks left in text, want 5", got)
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"read_file": true, "mcp:github:list-issues": true, "a.b": true, strings.Repeat("x", 128): true,
		"": false, strings.Repeat("x", 129): false, "rm -rf": false, "a/b": false, "naïve": false, "x\n": false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

// checkCalls asserts the invariants every Parse result holds.
func checkCalls(t *testing.T, calls []beamclaw.ToolCall) {
	t.Helper()
	if len(calls) > MaxCalls {
		t.Fatalf("%d calls, over MaxCalls", len(calls))
	}
	ids := map[string]bool{}
	for _, c := range calls {
		if !ValidName(c.Name) {
			t.Fatalf("invalid name %q", c.Name)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(c.Args, &obj); err != nil || obj == nil {
			t.Fatalf("args %q are not a JSON object: %v", c.Args, err)
		}
		if c.ID == "" || ids[c.ID] {
			t.Fatalf("empty or duplicate id %q", c.ID)
		}
		ids[c.ID] = true
	}
}
