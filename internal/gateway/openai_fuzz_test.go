package gateway

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// FuzzChatRequest: any body either is refused with a request error or
// converts into a history whose last message is the new input: the
// user's, or the results of the client's function calls.
func FuzzChatRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"default","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"default","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]}`,
		`{"model":"beamclaw/coder","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}`,
		`{"model":"default","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"},{"role":"user","content":"ok"}]}`,
		`{"model":"default","messages":[{"role":"user","content":5}]}`,
		`{"model":"default","n":3,"tools":[{}],"messages":[]}`,
		`{"model":`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	o := NewOpenAI(OpenAIOptions{Sessions: &oaiSessions{}, Agents: oaiAgents{"default", "coder"}})
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", nil)
		in, err := o.parse(r, body)
		if err != nil {
			var re *requestError
			if !errors.As(err, &re) || re.status < 400 || re.status > 499 {
				t.Fatalf("error %v is not a client error", err)
			}
			return
		}
		if len(in.history) == 0 {
			return // stored: the new message is in.text or in.results
		}
		if last := in.history[len(in.history)-1].Role; last != beamclaw.RoleUser && last != beamclaw.RoleTool {
			t.Fatalf("accepted body ending with a %s message: %q", last, body)
		}
		for _, m := range in.history {
			for _, a := range m.Attachments {
				if !strings.HasPrefix(a.MIME, "image/") || len(a.Data) == 0 {
					t.Fatalf("bad attachment %+v", a)
				}
			}
		}
	})
}

// FuzzResponseRequest: any body either is refused with a request error or
// holds input items that convert into messages of valid roles, ending with
// a new input the Responses API accepts.
func FuzzResponseRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"default","input":"hi"}`,
		`{"model":"default","input":[{"role":"developer","content":"be terse"},{"type":"message","role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}]}`,
		`{"model":"default","previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"c1","output":"42"}]}`,
		`{"model":"default","input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"x"}]}],"store":false}`,
		`{"model":"default","input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":{"type":"object"}}},"reasoning":{"effort":"low"},"max_output_tokens":5}`,
		`{"model":"default","input":"hi","tools":[{"type":"function","name":"f","parameters":{"type":"object"}}],"tool_choice":{"type":"function","name":"f"}}`,
		`{"model":"default","input":[{"type":"reasoning"}]}`,
		`{"model":"default","input":5}`,
		`{"model":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeResponseRequest(body)
		if err == nil {
			_, err = newItems(req.items)
		}
		if err != nil {
			var re *requestError
			if !errors.As(err, &re) || re.status < 400 || re.status > 499 {
				t.Fatalf("error %v is not a client error", err)
			}
			return
		}
		for _, m := range historyOf(req.items) {
			if !m.Role.Valid() {
				t.Fatalf("item became a message of role %q: %q", m.Role, body)
			}
		}
	})
}

// FuzzDataURL: parseDataURL never panics and only yields images.
func FuzzDataURL(f *testing.F) {
	for _, s := range []string{
		"data:image/png;base64,iVBORw0KGgo=", "data:image/jpeg;base64,/9j/4AAQ", "data:image/svg+xml,%3Csvg%3E",
		"DATA:IMAGE/GIF;BASE64,R0lGODlh", "data:text/plain,hi", "https://example.com/a.png", "data:", "data:image/png;base64,***",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseDataURL(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(a.MIME, "image/") || len(a.Data) == 0 {
			t.Fatalf("%q gave %+v", s, a)
		}
	})
}
