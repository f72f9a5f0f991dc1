package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// Text the model writes beside its calls is an item of its own, the same
// in the answer and in GET; a resend with the same Idempotency-Key gets the
// stored response whole (its function call too), not a second run.
func TestResponsesAnswerEqualsStored(t *testing.T) {
	r, c, ctx := responsesRig(t)
	r.llm.Script(fakellm.Reply{Text: "Let me note that.", ToolCalls: []fakellm.ToolCall{
		{ID: "call_m", Name: "workspace_memory", Arguments: `{"action":"append","content":"likes tea"}`},
		{ID: "call_l", Name: "lookup", Arguments: `{"q":"tea"}`}}})
	lookup := responses.ToolParamOfFunction("lookup", map[string]any{"type": "object"}, false)
	params := responses.ResponseNewParams{Model: "default", Input: respText("note: I like tea"), Tools: []responses.ToolUnionParam{lookup}}
	live, err := c.Responses.New(ctx, params, option.WithHeader("Idempotency-Key", "tea-1"))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := c.Responses.Get(ctx, live.ID, responses.ResponseGetParams{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(items []responses.ResponseOutputItemUnion) string {
		var b []string
		for _, it := range items {
			b = append(b, it.Type+":"+it.ID)
		}
		return strings.Join(b, " ")
	}
	if kinds(live.Output) != kinds(stored.Output) || len(live.Output) != 3 || live.Output[0].Type != "message" ||
		live.Output[1].Type != "mcp_call" || live.Output[2].Type != "function_call" {
		t.Errorf("answered %s\nstored   %s\nwant message, mcp_call, function_call alike", kinds(live.Output), kinds(stored.Output))
	}
	calls := len(r.llm.Requests())
	again, err := c.Responses.New(ctx, params, option.WithHeader("Idempotency-Key", "tea-1"))
	if err != nil || again.ID != live.ID || kinds(again.Output) != kinds(live.Output) {
		t.Fatalf("resend: %v %s %s, want the same response", err, again.ID, kinds(again.Output))
	}
	if n := len(r.llm.Requests()); n != calls {
		t.Errorf("the resend ran again (%d -> %d provider calls)", calls, n)
	}
}

// An SDK that resends the whole conversation (store: false) sends back the
// agent's tool calls as mcp_call items: they are accepted, and the model
// sees the call and its result.
func TestResponsesReplayedToolItems(t *testing.T) {
	r, c, ctx := responsesRig(t)
	first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Store: param.NewOpt(false),
		Input: respText(`call tool workspace_memory {"action":"append","content":"likes tea"}`)})
	if err != nil {
		t.Fatal(err)
	}
	// The items as the API returned them, raw, as an SDK resends them.
	items := []string{`{"role":"user","content":"call tool workspace_memory {\"action\":\"append\",\"content\":\"likes tea\"}"}`}
	for _, it := range first.Output {
		items = append(items, it.RawJSON())
	}
	items = append(items, `{"role":"user","content":"and now?"}`)
	var second responses.Response
	err = c.Post(ctx, "responses", json.RawMessage(`{"model":"default","store":false,"input":[`+strings.Join(items, ",")+`]}`), &second)
	if err != nil {
		t.Fatalf("resending the output items: %v", err)
	}
	if second.OutputText() != "echo: and now?" {
		t.Errorf("answer %q", second.OutputText())
	}
	roles := llmConversation(llmLast(t, r.llm))
	if !strings.Contains(strings.Join(roles, "|"), "assistant:") {
		t.Errorf("the model did not see the replayed turn: %q", roles)
	}
}

// A slash command is a response's input like any text: the model answers
// it, and the response is stored. A function's output holding a secret is
// scrubbed before the model or the store sees it.
func TestResponsesInputIsTheModels(t *testing.T) {
	_, c, ctx := responsesRig(t)
	yes, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText("/yes")})
	if err != nil || yes.OutputText() != "echo: /yes" {
		t.Fatalf("/yes: %v %q", err, yes.OutputText())
	}
	if _, err := c.Responses.Get(ctx, yes.ID, responses.ResponseGetParams{}); err != nil {
		t.Errorf("the /yes response is not stored: %v", err)
	}

	lookup := responses.ToolParamOfFunction("lookup", map[string]any{"type": "object"}, false)
	call, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Tools: []responses.ToolUnionParam{lookup},
		Input: respText(`call tool lookup {}`)})
	if err != nil {
		t.Fatal(err)
	}
	secret := canarySecret(t, "ghp_", 36)
	out := responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: param.NewOpt(call.Output[0].CallID), Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt("token " + secret)}}}
	final, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Tools: []responses.ToolUnionParam{lookup},
		PreviousResponseID: param.NewOpt(call.ID), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{out}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(final.OutputText(), secret) || !strings.Contains(final.OutputText(), "[REDACTED]") {
		t.Errorf("the model got the function's secret: %q", final.OutputText())
	}
}

// input_items pages newest first (or in order), and a request naming
// another user finds nobody's response but its own.
func TestResponsesInputItemsAndOwners(t *testing.T) {
	r, c, ctx := responsesRig(t)
	msg := func(role, text string) responses.ResponseInputItemUnionParam {
		return responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{Role: responses.EasyInputMessageRole(role),
			Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt(text)}}}
	}
	resp, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", User: param.NewOpt("ann"),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			msg("developer", "be brief"), msg("user", "one"), msg("assistant", "two"), msg("user", "three")}}})
	if err != nil {
		t.Fatal(err)
	}
	if p := r.promptOf(); p != "user:one|assistant:two|user:three|" {
		t.Errorf("the model saw %q", p)
	}
	text := func(it responses.ResponseItemUnion) string { return it.Content.OfInputItemContentList[0].Text }
	page, err := c.Responses.InputItems.List(ctx, resp.ID, responses.InputItemListParams{Limit: param.NewOpt[int64](2)})
	if err != nil || len(page.Data) != 2 || !page.HasMore || page.Data[0].Role != "user" || text(page.Data[0]) != "three" {
		t.Fatalf("first page %+v (%v)", page, err)
	}
	next, err := c.Responses.InputItems.List(ctx, resp.ID, responses.InputItemListParams{Limit: param.NewOpt[int64](2),
		After: param.NewOpt(page.Data[1].ID)})
	if err != nil || len(next.Data) != 2 || next.HasMore || next.Data[1].Role != "developer" {
		t.Fatalf("second page %+v (%v)", next, err)
	}
	asc, err := c.Responses.InputItems.List(ctx, resp.ID, responses.InputItemListParams{Order: responses.InputItemListParamsOrderAsc})
	if err != nil || len(asc.Data) != 4 || asc.Data[0].Role != "developer" {
		t.Fatalf("in order %+v (%v)", asc, err)
	}
	if _, err := c.Responses.Get(ctx, resp.ID, responses.ResponseGetParams{}, option.WithHeader("X-User-Id", "ann")); err != nil {
		t.Errorf("its own user: %v", err)
	}
	if _, err := c.Responses.Get(ctx, resp.ID, responses.ResponseGetParams{}, option.WithHeader("X-User-Id", "bob")); err == nil {
		t.Error("another user read ann's response")
	}
	if _, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", User: param.NewOpt("bob"),
		Input: respText("hijack"), PreviousResponseID: param.NewOpt(resp.ID)}); err == nil {
		t.Error("another user continued ann's conversation")
	}
}
