package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// The official openai-go SDK's Responses client against the real binary:
// each test drives it as an application would.

func respText(s string) responses.ResponseNewParamsInputUnion {
	return responses.ResponseNewParamsInputUnion{OfString: param.NewOpt(s)}
}

// responsesRig starts a daemon whose fake provider follows fakellm.Rules
// (anything else is echoed) and returns it with the SDK pointed at it and
// a context bounding the test.
func responsesRig(t *testing.T) (*chatRig, openai.Client, context.Context) {
	t.Helper()
	r := newChatRig(t, rigOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return r, r.sdkClient(), ctx
}

// promptOf renders the messages of the provider's last chat request.
func (r *chatRig) promptOf() string {
	r.t.Helper()
	reqs := r.llm.Requests()
	if len(reqs) == 0 {
		r.t.Fatal("the provider got no request")
	}
	var b strings.Builder
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "system" {
			continue
		}
		b.WriteString(m.Role + ":" + m.Content + "|")
	}
	return b.String()
}

func (r *chatRig) sessionCount() int {
	r.t.Helper()
	var list protocol.SessionList
	if err := json.Unmarshal([]byte(r.h.must("sessions", "list", "--json").stdout), &list); err != nil {
		r.t.Fatal(err)
	}
	return len(list.Sessions)
}

// Create, continue (streamed), branch from an older response, retrieve,
// list input items, delete; store: false leaves nothing behind.
func TestResponsesConversation(t *testing.T) {
	r, c, ctx := responsesRig(t)

	first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText("hello"),
		Metadata: map[string]string{"ticket": "42"}})
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != "completed" || first.OutputText() != "echo: hello" || first.Metadata["ticket"] != "42" || first.Usage.TotalTokens == 0 {
		t.Fatalf("first response %s %q %v usage %d", first.Status, first.OutputText(), first.Metadata, first.Usage.TotalTokens)
	}

	// Continued and streamed: the earlier turn is in the model's prompt.
	stream := c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "default", Input: respText("again"),
		PreviousResponseID: param.NewOpt(first.ID)})
	var types []string
	var deltas strings.Builder
	var done responses.Response
	seq := int64(-1)
	for stream.Next() {
		ev := stream.Current()
		if ev.SequenceNumber != seq+1 {
			t.Errorf("event %s has sequence_number %d after %d", ev.Type, ev.SequenceNumber, seq)
		}
		seq = ev.SequenceNumber
		if n := len(types); n == 0 || ev.Type != "response.output_text.delta" || types[n-1] != ev.Type {
			types = append(types, ev.Type) // the deltas, as many as the provider streamed, once
		}
		switch ev.Type {
		case "response.output_text.delta":
			deltas.WriteString(ev.Delta)
		case "response.completed":
			done = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.completed"}
	if got := strings.Join(types, " "); got != strings.Join(want, " ") {
		t.Errorf("events\n%s\nwant\n%s", got, strings.Join(want, " "))
	}
	if deltas.String() != "echo: again" || done.OutputText() != "echo: again" || done.PreviousResponseID != first.ID {
		t.Errorf("streamed %q, completed %q (previous %q)", deltas.String(), done.OutputText(), done.PreviousResponseID)
	}
	if p := r.promptOf(); p != "user:hello|assistant:echo: hello|user:again|" {
		t.Errorf("the model saw %q", p)
	}

	// Branch from the first response: the branch sees only the first
	// turn, and the original still holds its second.
	branch, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText("other way"),
		PreviousResponseID: param.NewOpt(first.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if p := r.promptOf(); p != "user:hello|assistant:echo: hello|user:other way|" {
		t.Errorf("the branch's model saw %q", p)
	}
	if _, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText("third"),
		PreviousResponseID: param.NewOpt(done.ID)}); err != nil {
		t.Fatal(err)
	}
	if p := r.promptOf(); p != "user:hello|assistant:echo: hello|user:again|assistant:echo: again|user:third|" {
		t.Errorf("the original, continued after the branch, gave the model %q", p)
	}

	// Retrieve and list the input.
	got, err := c.Responses.Get(ctx, first.ID, responses.ResponseGetParams{})
	if err != nil || got.OutputText() != "echo: hello" || got.ID != first.ID || got.Output[0].ID != first.Output[0].ID {
		t.Fatalf("retrieved %+v (%v)", got, err)
	}
	items, err := c.Responses.InputItems.List(ctx, branch.ID, responses.InputItemListParams{})
	if err != nil || len(items.Data) != 1 || items.Data[0].Type != "message" || items.Data[0].Content.OfInputItemContentList[0].Text != "other way" {
		t.Fatalf("input items %+v (%v)", items, err)
	}

	// Delete: gone for GET, and for continuing.
	if err := c.Responses.Delete(ctx, branch.ID); err != nil {
		t.Fatal(err)
	}
	var apiErr *openai.Error
	if _, err := c.Responses.Get(ctx, branch.ID, responses.ResponseGetParams{}); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Errorf("GET of a deleted response: %v", err)
	}

	// store: false answers and stores nothing.
	before := r.sessionCount()
	eph, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText("off the record"),
		Store: param.NewOpt(false)})
	if err != nil || eph.OutputText() != "echo: off the record" {
		t.Fatalf("store false: %v %+v", err, eph)
	}
	if n := r.sessionCount(); n != before {
		t.Errorf("store: false made a session (%d -> %d)", before, n)
	}
	if _, err := c.Responses.Get(ctx, eph.ID, responses.ResponseGetParams{}); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Errorf("GET of an unstored response: %v", err)
	}
}

// cancelMidStream streams a response through runner and cancels it
// through canceler at its first delta; the stream must end failed
// (cancelled). It returns the response's id.
func cancelMidStream(ctx context.Context, t *testing.T, runner, canceler openai.Client) string {
	t.Helper()
	stream := runner.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "default", Input: respText("take your time")})
	var id, last string
	for stream.Next() {
		ev := stream.Current()
		last = ev.Type
		switch ev.Type {
		case "response.created":
			id = ev.Response.ID
		case "response.output_text.delta":
			resp, err := canceler.Responses.Cancel(ctx, id)
			if err != nil || resp.Status != "cancelled" {
				t.Fatalf("cancel: %v %+v", err, resp)
			}
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if last != "response.failed" {
		t.Errorf("the stream ended with %s, want response.failed (cancelled)", last)
	}
	return id
}

// A slow run is cancelled by its id; the stream ends, and the stored
// response says cancelled.
func TestResponsesCancel(t *testing.T) {
	r, c, ctx := responsesRig(t)
	hold := make(chan struct{})
	defer close(hold)
	r.llm.Script(fakellm.Reply{Chunks: []string{"thinking ", "slowly"}, Hold: hold, HoldAfter: 1})
	id := cancelMidStream(ctx, t, c, c)
	got, err := c.Responses.Get(ctx, id, responses.ResponseGetParams{})
	if err != nil || got.Status != "cancelled" {
		t.Errorf("stored: %v %+v", err, got.Status)
	}
	var apiErr *openai.Error
	if _, err := c.Responses.Cancel(ctx, id); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusConflict {
		t.Errorf("cancelling an ended response: %v, want 409", err)
	}
}

// A response acknowledged before kill -9 still continues its
// conversation after the restart; so does a function call: the model
// calls the client's function, the daemon dies, and the client's output
// continues the run.
func TestResponsesSurviveKill9(t *testing.T) {
	r, c, ctx := responsesRig(t)
	first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText("remember cobalt")})
	if err != nil {
		t.Fatal(err)
	}
	lookup := responses.ToolParamOfFunction("lookup", map[string]any{"type": "object",
		"properties": map[string]any{"q": map[string]any{"type": "string"}}}, false)
	call, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Tools: []responses.ToolUnionParam{lookup},
		Input: respText(`call tool lookup {"q":"ada"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(call.Output) != 1 || call.Output[0].Type != "function_call" || call.Output[0].Name != "lookup" ||
		call.Output[0].Arguments.OfString != `{"q":"ada"}` {
		t.Fatalf("output %+v, want the lookup call", call.Output)
	}
	callID := call.Output[0].CallID

	r.kill9()
	r.start()
	c = r.sdkClient()

	again, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText("what colour?"),
		PreviousResponseID: param.NewOpt(first.ID)})
	if err != nil || again.OutputText() != "echo: what colour?" {
		t.Fatalf("continued after kill -9: %v %+v", err, again)
	}
	if p := r.promptOf(); p != "user:remember cobalt|assistant:echo: remember cobalt|user:what colour?|" {
		t.Errorf("after kill -9 the model saw %q", p)
	}
	out := responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: param.NewOpt(callID), Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt("born 1815")}}}
	final, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Tools: []responses.ToolUnionParam{lookup},
		PreviousResponseID: param.NewOpt(call.ID),
		Input:              responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{out}}})
	if err != nil {
		t.Fatal(err)
	}
	if final.OutputText() != "tool lookup said: born 1815" {
		t.Errorf("after the function's output: %q", final.OutputText())
	}
}

// manyPairs is n metadata pairs as JSON members.
func manyPairs(n int) string {
	pairs := make([]string, n)
	for i := range pairs {
		pairs[i] = fmt.Sprintf(`"k%d":"v"`, i)
	}
	return strings.Join(pairs, ",")
}

// Bad input is refused in the Responses error shape, and nothing is
// stored.
func TestResponsesBadInput(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.start()
	before := r.sessionCount()
	cases := []struct {
		name, body, param string
		status            int
	}{
		{"unknown item type", `{"model":"default","input":[{"type":"computer_call_output","call_id":"x"}]}`, "input[0].type", 400},
		{"wrong type", `{"model":"default","input":"hi","temperature":"hot"}`, "temperature", 400},
		{"out of range", `{"model":"default","input":"hi","top_p":3}`, "top_p", 400},
		{"unknown previous response", `{"model":"default","input":"hi","previous_response_id":"resp_nope"}`, "previous_response_id", 404},
		{"no input", `{"model":"default"}`, "input", 400},
		{"unknown model", `{"model":"nobody","input":"hi"}`, "model", 404},
		{"a function shadowing the agent's tool", `{"model":"default","input":"hi","tools":[{"type":"function","name":"read_file"}]}`, "tools[0].name", 400},
		{"malformed JSON", `{"model":`, "", 400},
		{"background", `{"model":"default","input":"hi","background":true}`, "background", 400},
		{"a prompt template", `{"model":"default","input":"hi","prompt":{"id":"pmpt_1"}}`, "prompt", 400},
		{"unknown truncation", `{"model":"default","input":"hi","truncation":"sometimes"}`, "truncation", 400},
		{"too much metadata", `{"model":"default","input":"hi","metadata":{` + manyPairs(17) + `}}`, "metadata", 400},
		{"an input file", `{"model":"default","input":[{"role":"user","content":[{"type":"input_file","file_id":"f"}]}]}`, "input[0].content[0]", 400},
		{"a remote image", `{"model":"default","input":[{"role":"user","content":[{"type":"input_image","image_url":"https://x/y.png"}]}]}`, "input[0].content[0]", 400},
		{"unstored continuation", `{"model":"default","input":"hi","store":false,"previous_response_id":"resp_x"}`, "previous_response_id", 400},
		{"new input not last", `{"model":"default","input":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}`, "input", 400},
		{"max_output_tokens below 1", `{"model":"default","input":"hi","max_output_tokens":0}`, "max_output_tokens", 400},
		{"tool_choice naming no tool", `{"model":"default","input":"hi","tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","name":"g"}}`, "tool_choice", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			hr, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+r.addr+"/v1/responses", strings.NewReader(tc.body))
			hr.Header.Set("Content-Type", "application/json")
			resp, err := r.hc.Do(hr)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e protocol.Error
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatal(err)
			}
			param := ""
			if e.Error.Param != nil {
				param = *e.Error.Param
			}
			if resp.StatusCode != tc.status || param != tc.param || e.Error.Message == "" {
				t.Errorf("%d param %q %q, want %d param %q", resp.StatusCode, param, e.Error.Message, tc.status, tc.param)
			}
		})
	}
	if n := r.sessionCount(); n != before {
		t.Errorf("refused requests made sessions (%d -> %d)", before, n)
	}
}

// The agent's own tools run inside beamclaw and are reported as mcp_call
// items (server "beamclaw"), streamed as they run; a tool that needs an
// approval, which this API cannot give, is not run and the response ends
// incomplete, saying why.
func TestResponsesReportTheAgentsTools(t *testing.T) {
	_, c, ctx := responsesRig(t)

	stream := c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "default",
		Input: respText(`call tool workspace_memory {"action":"append","content":"likes tea"}`)})
	var added, doneItems []string
	var done responses.Response
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_item.added":
			added = append(added, ev.Item.Type)
		case "response.output_item.done":
			doneItems = append(doneItems, ev.Item.Type)
		case "response.completed":
			done = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(added, ",") != "mcp_call,message" || strings.Join(doneItems, ",") != "mcp_call,message" {
		t.Errorf("items added %v, done %v; want the tool's call, then the answer", added, doneItems)
	}
	if len(done.Output) != 2 || done.Output[0].Type != "mcp_call" || done.Output[0].ServerLabel != "beamclaw" ||
		done.Output[0].Name != "workspace_memory" || done.Output[0].Output.OfString == "" || done.Status != "completed" {
		t.Fatalf("completed output %+v", done.Output)
	}
	stored, err := c.Responses.Get(ctx, done.ID, responses.ResponseGetParams{})
	if err != nil || len(stored.Output) != 2 || stored.Output[0].ID != done.Output[0].ID || stored.Output[1].ID != done.Output[1].ID ||
		stored.OutputText() != done.OutputText() {
		t.Errorf("stored output differs from the streamed one: %v %+v", err, stored.Output)
	}

	denied, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default",
		Input: respText(`call tool bash {"command":"ls"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if denied.Status != "incomplete" || denied.IncompleteDetails.Reason != "approval_required" {
		t.Errorf("status %q reason %q, want incomplete approval_required", denied.Status, denied.IncompleteDetails.Reason)
	}
	if len(denied.Output) == 0 || denied.Output[0].Type != "mcp_call" || !strings.HasPrefix(denied.Output[0].Output.OfString, "denied: ") {
		t.Errorf("output %+v, want the refused call with why", denied.Output)
	}
}

// A call of a tool the agent does not have is answered inside beamclaw
// (the model hears why) and shows as the same item live and stored.
func TestResponsesUnknownToolIsAnItem(t *testing.T) {
	_, c, ctx := responsesRig(t)
	live, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText(`call tool nosuch {}`)})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := c.Responses.Get(ctx, live.ID, responses.ResponseGetParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(live.Output) != 2 || live.Output[0].Type != "mcp_call" || !strings.Contains(live.Output[0].Output.OfString, "unknown tool") ||
		len(stored.Output) != 2 || stored.Output[0].Output.OfString != live.Output[0].Output.OfString {
		t.Errorf("live %+v\nstored %+v", live.Output, stored.Output)
	}
}

// The sampling and output controls, the instructions and tool_choice reach
// the provider; instructions are this response's only, not stored in the
// conversation; an Idempotency-Key sent again is answered from the first
// request, never run twice.
func TestResponsesControlsReachTheProvider(t *testing.T) {
	r, c, ctx := responsesRig(t)
	lookup := responses.ToolParamOfFunction("lookup", map[string]any{"type": "object"}, false)
	params := responses.ResponseNewParams{Model: "default", Input: respText("capital of France as JSON"),
		Instructions: param.NewOpt("Answer in JSON."), Temperature: param.NewOpt(0.2), TopP: param.NewOpt(0.9),
		MaxOutputTokens: param.NewOpt[int64](64), Reasoning: shared.ReasoningParam{Effort: shared.ReasoningEffortLow},
		Tools: []responses.ToolUnionParam{lookup}, ToolChoice: responses.ResponseNewParamsToolChoiceUnion{
			OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: "lookup"}},
		Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: "city", Schema: map[string]any{"type": "object"}}}}}
	first, err := c.Responses.New(ctx, params, option.WithHeader("Idempotency-Key", "k-1"))
	if err != nil {
		t.Fatal(err)
	}
	req := llmLast(t, r.llm)
	providerGot(t, req, map[string]any{"temperature": 0.2, "top_p": 0.9, "reasoning_effort": "low",
		"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "lookup"}}})
	if sys := req.Messages[0]; sys.Role != "system" || !strings.HasSuffix(sys.Content, "Answer in JSON.") {
		t.Errorf("system prompt does not end with the instructions: %.80q", sys.Content)
	}
	calls := len(r.llm.Requests())

	// The same key and body: the first answer, no second run.
	again, err := c.Responses.New(ctx, params, option.WithHeader("Idempotency-Key", "k-1"))
	if err != nil || again.OutputText() != first.OutputText() {
		t.Fatalf("resent: %v %q, want %q", err, again.OutputText(), first.OutputText())
	}
	if n := len(r.llm.Requests()); n != calls {
		t.Errorf("a resend with the same Idempotency-Key ran again (%d -> %d provider calls)", calls, n)
	}

	// Continuing without instructions: the earlier ones are not in the
	// prompt, nor in the conversation.
	if _, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText("and Spain?"),
		PreviousResponseID: param.NewOpt(first.ID)}); err != nil {
		t.Fatal(err)
	}
	for _, m := range llmLast(t, r.llm).Messages {
		if strings.Contains(m.Content, "Answer in JSON.") {
			t.Errorf("the first response's instructions reached the next one (%s message)", m.Role)
		}
	}
}

// A provider that rate-limits answers a plain request with 429 and
// Retry-After, as chat completions do, and ends a stream with
// response.failed (rate_limit_exceeded), and the response is stored as
// failed, with why.
func TestResponsesProviderFailure(t *testing.T) {
	r, c, ctx := responsesRig(t)
	r.llm.Script(fakellm.Reply{Status: http.StatusTooManyRequests, RetryAfter: 7 * time.Second},
		fakellm.Reply{Status: http.StatusTooManyRequests, RetryAfter: 7 * time.Second})
	var apiErr *openai.Error
	_, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText("hi")})
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests || apiErr.Response.Header.Get("Retry-After") != "7" {
		t.Fatalf("plain: %v, want 429 with Retry-After 7", err)
	}
	stream := c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "default", Input: respText("hi")})
	var last responses.ResponseStreamEventUnion
	for stream.Next() {
		last = stream.Current()
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if last.Type != "response.failed" || last.Response.Status != "failed" || last.Response.Error.Code != "rate_limit_exceeded" {
		t.Fatalf("stream ended with %s %s %+v", last.Type, last.Response.Status, last.Response.Error)
	}
	got, err := c.Responses.Get(ctx, last.Response.ID, responses.ResponseGetParams{})
	if err != nil || got.Status != "failed" || got.Error.Message == "" {
		t.Errorf("the failed response as stored: %v %s %+v", err, got.Status, got.Error)
	}
}
