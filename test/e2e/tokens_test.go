package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// firstTurnBudget is what a first turn of the default agent may send
// upstream (issue 28: at most 6 KB, from 12.2 KB).
const firstTurnBudget = 6000

// TestPromptPrefixIsStable measures what a turn sends upstream with the
// default agent and guards what makes providers' prefix caches work: the
// tool definitions and the system prompt's stable part are byte-identical
// across a user's turns and across users of the agent, even when a user
// has memory of their own (it comes after the stable part).
func TestPromptPrefixIsStable(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.chat("t2", "hello")
	for i := range 10 {
		r.chat("t1", fmt.Sprintf("hello %d", i))
	}
	r.chat("t1", `call tool workspace_memory {"action":"append","content":"t1 takes tea without sugar"}`)
	r.chat("t1", "and now?")
	reqs := r.llm.Requests()
	if len(reqs) != 14 {
		t.Fatalf("the provider got %d requests, want 14", len(reqs))
	}
	tools, stable := promptParts(t, reqs[0].Body)
	for i, req := range reqs[1:] {
		tl, system := promptParts(t, req.Body)
		if !bytes.Equal(tl, tools) {
			t.Errorf("request %d's tools (%d bytes) differ from the first's (%d bytes)", i+1, len(tl), len(tools))
		}
		if !strings.HasPrefix(system, stable) {
			t.Errorf("request %d's system prompt does not start with the stable part:\n%s", i+1, system)
		}
	}
	if _, own := promptParts(t, reqs[len(reqs)-1].Body); !strings.Contains(own, "t1 takes tea") || len(own) <= len(stable) {
		t.Errorf("t1's own memory is not after the stable part:\n%s", own)
	}
	first, tenth := len(reqs[1].Body), len(reqs[10].Body)
	t.Logf("bytes upstream: first turn %d (tools %d, system %d), tenth turn %d", first, len(tools), len(stable), tenth)
	if first > firstTurnBudget {
		t.Errorf("a first turn sends %d bytes upstream, want at most %d", first, firstTurnBudget)
	}
}

// promptParts is a chat request's tools array, as sent, and its system
// message's text.
func promptParts(t *testing.T, body []byte) (tools json.RawMessage, system string) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
		system = req.Messages[0].Content
	}
	return req.Tools, system
}

// TestCachedShareFromTheSecondTurn: a provider that caches a repeated
// prefix as OpenAI does reads at least 80 % of each prompt from its cache
// from a conversation's second turn on; the answers report it, and
// `sessions show` and `users export` sum it, the daemon running or not.
func TestCachedShareFromTheSecondTurn(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.llm.CachePrefixes(true)
	r.start()
	total := 0
	for i := range 10 {
		code, body := r.post("t1", fmt.Sprintf("question %d about the weather", i))
		if code != 200 {
			t.Fatalf("turn %d: %d %s", i, code, body)
		}
		var a struct {
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
				Details      *struct {
					CachedTokens int `json:"cached_tokens"`
				} `json:"prompt_tokens_details"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(body), &a); err != nil {
			t.Fatal(err)
		}
		cached := 0
		if a.Usage.Details != nil {
			cached = a.Usage.Details.CachedTokens
		}
		share := float64(cached) / float64(a.Usage.PromptTokens)
		t.Logf("turn %d: %d prompt tokens, %d cached (%.0f %%)", i+1, a.Usage.PromptTokens, cached, 100*share)
		if i > 0 && share < 0.8 {
			t.Errorf("turn %d: %d of %d prompt tokens cached (%.0f %%), want at least 80 %%", i+1, cached, a.Usage.PromptTokens, 100*share)
		}
		total += cached
	}
	var list protocol.SessionList
	if err := json.Unmarshal([]byte(r.h.must("sessions", "list", "--json").stdout), &list); err != nil || len(list.Sessions) != 1 {
		t.Fatalf("sessions %+v (%v)", list.Sessions, err)
	}
	id := list.Sessions[0].ID
	show := func(running bool) {
		t.Helper()
		var d protocol.SessionDetail
		if err := json.Unmarshal([]byte(r.h.must("sessions", "show", id, "--json").stdout), &d); err != nil {
			t.Fatal(err)
		}
		if d.Usage == nil || d.Usage.Cached != int64(total) || d.Usage.Calls != 10 {
			t.Errorf("sessions show: usage %+v, want %d cached tokens over 10 calls", d.Usage, total)
		}
		if out := r.h.must("sessions", "show", id).stdout; !strings.Contains(out, fmt.Sprintf("(%d cached)", total)) {
			t.Errorf("sessions show does not say the cached tokens:\n%s", out)
		}
		if !running {
			return // users export needs the daemon
		}
		var ex protocol.UserExport
		if err := json.Unmarshal([]byte(r.h.must("users", "export", list.Sessions[0].User).stdout), &ex); err != nil ||
			len(ex.Sessions) != 1 || ex.Sessions[0].Usage == nil || ex.Sessions[0].Usage.Cached != int64(total) {
			t.Errorf("users export: %+v (%v), want the session's %d cached tokens", ex.Sessions, err, total)
		}
	}
	show(true)
	r.kill9()
	show(false)
}

// TestDeferredToolThroughToolSearch: jq is not sent with the default
// agent's requests but listed in its prompt; tool_search returns its
// schema, after which it is offered, and it runs.
func TestDeferredToolThroughToolSearch(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.chat("ana", `call tool tool_search {"query":"json filter"}`)
	found := llmToolResults(llmLast(t, r.llm))
	if len(found) != 1 || !strings.Contains(found[0], `"name":"jq"`) || !strings.Contains(found[0], `"filter"`) {
		t.Fatalf("tool_search answered %q", found)
	}
	first := r.llm.Requests()[0]
	if hasTool(first, "jq") || !hasTool(first, "tool_search") {
		t.Errorf("the first request's tools: jq %v, tool_search %v", hasTool(first, "jq"), hasTool(first, "tool_search"))
	}
	answer := r.chat("ana", `call tool jq {"filter":".a","input":{"a":42}}`)
	if !hasTool(llmLast(t, r.llm), "jq") {
		t.Error("jq is not offered after tool_search found it")
	}
	if !strings.Contains(answer, "42") {
		t.Errorf("jq's answer %q", answer)
	}
}

func hasTool(req fakellm.Request, name string) bool {
	for _, tl := range req.Tools {
		if tl.Name == name {
			return true
		}
	}
	return false
}

// TestInlineToolsPerAgent: core.agents.NAME.inline_tools names the tools
// an agent gets with every request ("*" all of them); the rest wait
// behind tool_search, listed in its prompt.
func TestInlineToolsPerAgent(t *testing.T) {
	for _, tc := range []struct {
		list     string
		inline   []string
		deferred []string
	}{
		{"[read_file]", []string{"read_file", "tool_search"}, []string{"bash", "jq", "write_file"}},
		{`["*"]`, []string{"bash", "delete_file", "jq", "read_file", "terminal"}, nil},
	} {
		t.Run(tc.list, func(t *testing.T) {
			r := newChatRig(t, rigOptions{core: "  agents:\n    default: {inline_tools: " + tc.list + "}\n"})
			r.start()
			r.chat("ana", "hello")
			req := llmLast(t, r.llm)
			_, system := promptParts(t, req.Body)
			for _, name := range tc.inline {
				if !hasTool(req, name) {
					t.Errorf("%s is not sent", name)
				}
			}
			for _, name := range tc.deferred {
				if hasTool(req, name) || !strings.Contains(system, "\n- "+name+": ") {
					t.Errorf("%s is not deferred (sent: %v)", name, hasTool(req, name))
				}
			}
			if tc.deferred == nil && (hasTool(req, "tool_search") || strings.Contains(system, "# More tools")) {
				t.Error("tool_search offered with every tool inline")
			}
		})
	}
}

// TestCacheBreakpointsOnAnOpenAICompatibleProvider: with
// cache_breakpoints on (as auto does for Anthropic models on OpenRouter),
// a conversation's second turn marks the stable system part and the
// first turn's answer, and the model still reads the same text.
func TestCacheBreakpointsOnAnOpenAICompatibleProvider(t *testing.T) {
	r := newChatRig(t, rigOptions{providerKeys: map[string]string{"fake": "cache_breakpoints: on"}})
	r.start()
	r.chat("ana", "first question")
	r.chat("ana", "second question")
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	body := llmLast(t, r.llm).Body
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var marked, texts []string
	for _, m := range req.Messages {
		var parts []struct {
			Text         string          `json:"text"`
			CacheControl json.RawMessage `json:"cache_control"`
		}
		if json.Unmarshal(m.Content, &parts) != nil {
			continue // plain text content
		}
		for _, p := range parts {
			if string(p.CacheControl) == `{"type":"ephemeral"}` {
				marked, texts = append(marked, m.Role), append(texts, p.Text)
			}
		}
	}
	if strings.Join(marked, ",") != "system,assistant" || len(req.Messages) != 4 {
		t.Fatalf("marked %v, want the system's stable part and the first answer:\n%s", marked, body)
	}
	if !strings.HasPrefix(texts[0], `You are the BeamClaw agent "default"`) || texts[1] != "echo: first question" {
		t.Errorf("marked texts %q", texts)
	}
}

// TestResponsesReportCachedTokens: the Responses API's usage carries the
// cached tokens the provider reported (input_tokens_details), as the
// openai-go SDK reads them.
func TestResponsesReportCachedTokens(t *testing.T) {
	r, c, ctx := responsesRig(t)
	r.llm.CachePrefixes(true)
	first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText("first question")})
	if err != nil {
		t.Fatal(err)
	}
	next, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "default", Input: respText("second question"),
		PreviousResponseID: param.NewOpt(first.ID)})
	if err != nil {
		t.Fatal(err)
	}
	u := next.Usage
	if u.InputTokensDetails.CachedTokens < 1024 || u.InputTokensDetails.CachedTokens > u.InputTokens {
		t.Errorf("the second response's usage %+v, want its cached prefix reported", u)
	}
}

// TestClientFunctionNamedLikeADeferredTool: a client's function may not
// take the name of an agent's tool that waits behind tool_search any
// more than an inline one's (a search would make the agent's tool shadow
// it mid-conversation).
func TestClientFunctionNamedLikeADeferredTool(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.start()
	for _, name := range []string{"read_file", "jq", "tool_search"} {
		body := `{"model":"default","messages":[{"role":"user","content":"hi"}],` +
			`"tools":[{"type":"function","function":{"name":"` + name + `","parameters":{"type":"object"}}}]}`
		if status, param := r.postRaw(t, body, nil); status != http.StatusBadRequest || param != "tools[0].name" {
			t.Errorf("a function named %s: status %d param %q, want 400 on tools[0].name", name, status, param)
		}
	}
	if n := len(r.llm.Requests()); n != 0 {
		t.Errorf("a refused request reached the model (%d requests)", n)
	}
}
