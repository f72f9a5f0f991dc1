package fakellm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRules(t *testing.T) {
	user := func(s string) Request { return Request{Messages: []Message{{Role: "user", Content: s}}} }
	tests := []struct {
		name string
		req  Request
		want Reply
	}{
		{"echo", user("hi there"), Reply{Text: "echo: hi there"}},
		{"no messages", Request{}, Reply{Text: "echo: "}},
		{"fail 429", user("please fail 429 now"), Reply{Status: 429, Error: "fakellm: Too Many Requests"}},
		{"fail 500", user("fail 500"), Reply{Status: 500, Error: "fakellm: Internal Server Error"}},
		{"call tool", user(`call tool read_file {"path":"a.txt"} thanks`),
			Reply{ToolCalls: []ToolCall{{Name: "read_file", Arguments: `{"path":"a.txt"}`}}}},
		{"call tool no args", user("call tool now"), Reply{ToolCalls: []ToolCall{{Name: "now", Arguments: "{}"}}}},
		{"call tool bad args", user("call tool x {oops"), Reply{ToolCalls: []ToolCall{{Name: "x", Arguments: "{oops"}}}},
		{"xml tool", user(`xml tool bash {"cmd":"ls"}`),
			Reply{Text: `<tool_call><name>bash</name><args>{"cmd":"ls"}</args></tool_call>`}},
		{"after tool result", Request{Messages: []Message{
			{Role: "user", Content: `call tool read_file {"path":"a"}`},
			{Role: "assistant", ToolCalls: []ToolCall{{ID: "call_9", Name: "read_file", Arguments: `{"path":"a"}`}}},
			{Role: "tool", ToolCallID: "call_9", Content: "file body"},
		}}, Reply{Text: "tool read_file said: file body"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Rules(tt.req)); diff != "" {
				t.Errorf("Rules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitWords(t *testing.T) {
	if diff := cmp.Diff([]string{"a  ", "b ", "c"}, SplitWords("a  b c")); diff != "" {
		t.Error(diff)
	}
	if SplitWords("") != nil {
		t.Error("empty text has pieces")
	}
}
