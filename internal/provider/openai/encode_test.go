package openai

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func goldenConversation() beamclaw.ChatRequest {
	return beamclaw.ChatRequest{
		MaxTokens: 1024,
		Messages: []beamclaw.Message{
			{Role: beamclaw.RoleSystem, Content: "You are beamclaw."},
			{Role: beamclaw.RoleUser, Content: "What is in this picture?", Attachments: []beamclaw.Attachment{
				{MIME: "image/png", Data: []byte("\x89PNG fake"), Name: "cat.png"},
				{MIME: "application/pdf", Data: []byte("%PDF-1.7"), Name: "notes.pdf"},
			}},
			{Role: beamclaw.RoleAssistant, Content: "", ToolCalls: []beamclaw.ToolCall{
				{ID: "call_1", Name: "describe_image", Args: json.RawMessage(`{"detail":"high"}`), Source: "native"},
				{ID: "call_2", Name: "bad_args", Args: json.RawMessage(`"{not json"`), Source: "native"},
			}},
			{Role: beamclaw.RoleTool, ToolCallID: "call_1", Name: "describe_image", Content: "A cat on a mat."},
			{Role: beamclaw.RoleTool, ToolCallID: "call_2", Name: "bad_args", Content: "error: arguments are not valid JSON"},
			{Role: beamclaw.RoleAssistant, Content: "It is a cat."},
		},
		Tools: []beamclaw.ToolDef{
			{Name: "describe_image", Description: "Describe an image.", Source: "builtin",
				Parameters: json.RawMessage(`{"type":"object","properties":{"detail":{"type":"string"}}}`)},
			{Name: "now", Description: "Current time."},
		},
	}
}

func TestEncodeChatGolden(t *testing.T) {
	got, err := json.MarshalIndent(encodeChat(goldenConversation(), "gpt-4o", false), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "chat_request.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("encoded request differs from %s (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}

func TestEncodeChatMaxCompletionTokens(t *testing.T) {
	req := encodeChat(beamclaw.ChatRequest{MaxTokens: 5}, "gpt-5", true)
	if req.MaxCompletionTokens != 5 || req.MaxTokens != 0 {
		t.Errorf("max tokens fields = %d/%d", req.MaxTokens, req.MaxCompletionTokens)
	}
}

func TestArgumentsString(t *testing.T) {
	tests := []struct {
		name string
		in   json.RawMessage
		want string
	}{
		{"object", json.RawMessage(`{"a":1}`), `{"a":1}`},
		{"empty", nil, "{}"},
		{"null", json.RawMessage(`null`), "{}"},
		{"bad args kept as string", json.RawMessage(`"{oops"`), "{oops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := argumentsString(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEncodeChatSampling(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	seed, no := int64(7), false
	req := beamclaw.ChatRequest{MaxTokens: 1000, Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hi"}},
		Sampling: &beamclaw.Sampling{Temperature: f(0), TopP: f(0.5), MaxTokens: 64, Stop: []string{"END"}, Seed: &seed,
			PresencePenalty: f(1), FrequencyPenalty: f(-1), ReasoningEffort: "low", ParallelToolCalls: &no,
			ResponseFormat: json.RawMessage(`{"type":"json_object"}`)}}
	b, err := json.Marshal(encodeChat(req, "m", false))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"temperature": 0.0, "top_p": 0.5, "max_tokens": 64.0, "stop": []any{"END"}, "seed": 7.0,
		"presence_penalty": 1.0, "frequency_penalty": -1.0, "reasoning_effort": "low",
		"response_format": map[string]any{"type": "json_object"}}
	for k, v := range want {
		if diff := cmp.Diff(v, got[k]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", k, diff)
		}
	}
	for _, k := range []string{"parallel_tool_calls", "tool_choice"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s sent without tools (providers refuse it)", k)
		}
	}
	req.Sampling.ToolChoice = json.RawMessage(`{"type":"function","function":{"name":"lookup"}}`)
	req.Tools = []beamclaw.ToolDef{{Name: "lookup", Source: beamclaw.SourceClient}}
	if out := encodeChat(req, "m", false); string(out.ToolChoice) != string(req.Sampling.ToolChoice) || out.ParallelToolCalls == nil {
		t.Errorf("with tools: tool_choice %s, parallel_tool_calls %v; want both sent", out.ToolChoice, out.ParallelToolCalls)
	}
	req.Tools = nil

	// The agent's cap holds over a client asking for more.
	req.Sampling.MaxTokens = 5000
	if out := encodeChat(req, "m", true); out.MaxCompletionTokens != 1000 {
		t.Errorf("max_completion_tokens %d, want the agent's cap 1000", out.MaxCompletionTokens)
	}
}

// The body with cached tools says what json.Marshal of the whole request
// says, whatever the order of its members, and a changed tool set is not
// served from the cache.
func TestEncodeBodyWithCachedTools(t *testing.T) {
	c := &Client{t: &transport{name: "t"}}
	req := goldenConversation()
	long := strings.Repeat("A long prompt with \"quotes\", <tags> & ünïcode, \x01 controls,\n\tand a marker-like \x00beamclaw \u2028 text. ", 40)
	req.Messages = append([]beamclaw.Message{{Role: beamclaw.RoleSystem, Content: long}}, req.Messages...)
	for range 2 { // the second from the cache
		got, err := c.encodeBody(nil, req, "gpt-4o")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(encodeChat(req, "gpt-4o", false))
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("invalid body: %v\n%s", err, got)
		}
		_ = json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("body\n%s\nwant\n%s", got, want)
		}
	}
	if len(req.Tools) == 0 {
		t.Fatal("the golden conversation has no tools")
	}
	req.Tools = append([]beamclaw.ToolDef(nil), req.Tools...)
	req.Tools[0].Description = "changed"
	got, _ := c.encodeBody(nil, req, "gpt-4o")
	if !bytes.Contains(got, []byte(`"description":"changed"`)) {
		t.Errorf("a changed tool came from the cache:\n%s", got)
	}
}

// ChatRequest.System goes first, exactly as a leading system message
// would, through both the cached and the plain encoding.
func TestEncodeSystemGoesFirst(t *testing.T) {
	c := &Client{t: &transport{name: "t"}}
	for _, prompt := range []string{"be brief", strings.Repeat("a long agent prompt ", 100)} {
		with := goldenConversation()
		with.System = prompt
		as := goldenConversation()
		as.Messages = append([]beamclaw.Message{{Role: beamclaw.RoleSystem, Content: prompt}}, as.Messages...)
		got, err := c.encodeBody(nil, with, "gpt-4o")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := c.encodeBody(nil, as, "gpt-4o")
		if !bytes.Equal(got, want) {
			t.Errorf("System:\n%s\nleading message:\n%s", got, want)
		}
	}
}

// A cached message is used only for an equal message: an entry that
// shares a message's hash (forced here) is not sent in its place.
func TestMessageCacheNeverTrustsTheHashAlone(t *testing.T) {
	var ec encCaches
	msg := wireText{role: string(beamclaw.RoleUser), content: "the first message"}
	first, err := ec.appendText(nil, msg)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := ec.appendText(nil, msg); !bytes.Equal(again, first) {
		t.Fatalf("cached %s, first %s", again, first)
	}
	for key, e := range ec.msgs.entries.m { // make every entry claim to be another message
		e.v.enc = []byte(`{"role":"user","content":"someone else's"}`)
		ec.msgs.entries.m[key] = e
	}
	got, _ := ec.appendText(nil, msg)
	if !bytes.Equal(got, []byte(`{"role":"user","content":"someone else's"}`)) {
		t.Fatalf("the equal message did not come from the cache: %s", got)
	}
	for key, e := range ec.msgs.entries.m {
		e.v.src.content = "not this one"
		ec.msgs.entries.m[key] = e
	}
	got, _ = ec.appendText(nil, msg)
	if !bytes.Equal(got, first) {
		t.Errorf("a colliding entry was sent: %s", got)
	}
	for _, tc := range []struct {
		role     beamclaw.Role
		content  string
		callID   string
		wantJSON string
	}{
		{beamclaw.RoleTool, "the first message", "call_1", `{"role":"tool","content":"the first message","tool_call_id":"call_1"}`},
		{beamclaw.RoleAssistant, "the first message", "", `{"role":"assistant","content":"the first message"}`},
	} {
		if got, _ := ec.appendText(nil, wireText{role: string(tc.role), content: tc.content, callID: tc.callID}); string(got) != tc.wantJSON {
			t.Errorf("%s: %s, want %s", tc.role, got, tc.wantJSON)
		}
	}
}

// A cached tool array is used only for the same tools, however their
// hashes fall.
func TestToolsCacheNeverTrustsTheHashAlone(t *testing.T) {
	var ec encCaches
	defs := []beamclaw.ToolDef{{Name: "read_file", Description: "reads", Parameters: json.RawMessage(`{"type":"object"}`)}}
	first, err := ec.toolsJSON(defs)
	if err != nil {
		t.Fatal(err)
	}
	for key, e := range ec.tools.entries.m { // the entry now claims another tool set
		e.v.src = []beamclaw.ToolDef{{Name: "other"}}
		e.v.enc = []byte(`[{"type":"function","function":{"name":"other"}}]`)
		ec.tools.entries.m[key] = e
	}
	if got, _ := ec.toolsJSON(defs); !bytes.Equal(got, first) {
		t.Errorf("a colliding entry was sent: %s", got)
	}
}

// The cache stays within its bound however many messages pass.
func TestMessageCacheIsBounded(t *testing.T) {
	var ec encCaches
	text := strings.Repeat("x", 64<<10)
	for i := range 200 {
		if _, err := ec.appendText(nil, wireText{role: string(beamclaw.RoleUser), content: fmt.Sprintf("%d %s", i, text)}); err != nil {
			t.Fatal(err)
		}
		if ec.msgs.entries.size > maxMessageCache {
			t.Fatalf("after %d messages the cache holds %d bytes", i+1, ec.msgs.entries.size)
		}
	}
}
