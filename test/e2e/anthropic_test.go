package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// anthropicBody is the part of a Messages API request body the test reads.
type anthropicBody struct {
	System []struct {
		Text         string          `json:"text"`
		CacheControl json.RawMessage `json:"cache_control"`
	} `json:"system"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type         string          `json:"type"`
			Text         string          `json:"text"`
			CacheControl json.RawMessage `json:"cache_control"`
			Source       *struct {
				Type      string `json:"type"`
				MediaType string `json:"media_type"`
				Data      string `json:"data"`
			} `json:"source"`
		} `json:"content"`
	} `json:"messages"`
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
}

func anthropicRequest(t *testing.T, req fakellm.Request) anthropicBody {
	t.Helper()
	if req.Path != fakellm.PathMessages {
		t.Fatalf("the provider was called at %s, want Anthropic's %s", req.Path, fakellm.PathMessages)
	}
	var b anthropicBody
	if err := json.Unmarshal(req.Body, &b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAnthropicProvider (issue 28): a provider of kind anthropic serves
// the OpenAI-compatible API through the real binary: plain and streamed
// answers, a builtin tool's round, an image as a base64 block, thinking
// that never reaches the answer, the two cache breakpoints (the system
// prompt, the previous turn of the session), the cache reads in the usage
// ledger, and a 529 that falls over to the next provider.
func TestAnthropicProvider(t *testing.T) {
	backup := fakellm.New(t)
	backup.SetDefault(fakellm.Rules)
	r := newChatRig(t, rigOptions{fakeName: "claude", kinds: map[string]string{"claude": "anthropic"},
		providers: map[string]string{"backup": backup.URL()}, fallback: []string{"backup"},
		autonomy: "full", channels: map[string]string{"http": "full"}})
	r.llm.SetDefault(fakellm.Rules)
	r.h.must("agent", "create", "default")
	putFile(t, r.agentFile("notes.txt"), "the treasure is under the oak")
	r.start()
	c := r.sdkClient()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// A plain answer, then a streamed one.
	if got := r.chat("ana", "hello claude"); got != "echo: hello claude" {
		t.Errorf("plain answer %q", got)
	}
	anthropicRequest(t, llmLast(t, r.llm))
	acc, chunks := sdkStream(ctx, t, c, openai.ChatCompletionNewParams{Model: "default", User: openai.String("bo"),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("stream this please")}})
	if len(acc.Choices) != 1 || acc.Choices[0].Message.Content != "echo: stream this please" || chunks < 2 {
		t.Errorf("streamed answer %+v in %d chunks", acc.Choices, chunks)
	}

	// A builtin tool's round: tool_use, the result as a tool_result.
	if got := r.chat("cy", `call tool read_file {"path":"notes.txt"}`); !strings.Contains(got, "tool read_file said:") ||
		!strings.Contains(got, "the treasure is under the oak") {
		t.Errorf("tool round answer %q", got)
	}
	if res := llmToolResults(llmLast(t, r.llm)); len(res) != 1 || !strings.Contains(res[0], "treasure") {
		t.Errorf("the tool result the model got: %q", res)
	}

	anthropicImage(t, r)
	anthropicThinking(ctx, t, r, c)
	anthropicCache(t, r)
	anthropicFallback(t, r, backup)
}

// anthropicImage: an image_url data URL reaches the provider as a base64
// image block.
func anthropicImage(t *testing.T, r *chatRig) {
	t.Helper()
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nfake"))
	body := `{"model":"default","user":"di","messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},` +
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,` + png + `"}}]}]}`
	if status, param := r.postRaw(t, body, nil); status != http.StatusOK {
		t.Fatalf("image: status %d (%s)", status, param)
	}
	b := anthropicRequest(t, llmLast(t, r.llm))
	last := b.Messages[len(b.Messages)-1].Content
	if len(last) != 2 || last[1].Type != "image" || last[1].Source == nil || last[1].Source.Type != "base64" ||
		last[1].Source.MediaType != "image/png" || last[1].Source.Data != png {
		t.Errorf("the user turn the provider got: %+v", last)
	}
}

// anthropicThinking: a reasoning effort turns on thinking; the thinking
// the model streams is not in the answer.
func anthropicThinking(ctx context.Context, t *testing.T, r *chatRig, c openai.Client) {
	t.Helper()
	r.llm.Script(fakellm.Reply{Reasoning: "private chain of thought", Text: "Forty-two."})
	comp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "default", User: openai.String("eve"),
		ReasoningEffort: shared.ReasoningEffortHigh,
		Messages:        []openai.ChatCompletionMessageParamUnion{openai.UserMessage("the answer?")}})
	if err != nil {
		t.Fatalf("thinking: %v", err)
	}
	if got := comp.Choices[0].Message.Content; got != "Forty-two." {
		t.Errorf("answer with thinking %q, want the text alone", got)
	}
	if b := anthropicRequest(t, llmLast(t, r.llm)); b.Thinking == nil || b.Thinking.Type != "enabled" || b.Thinking.BudgetTokens != 16384 {
		t.Errorf("thinking sent: %+v", b.Thinking)
	}
}

// anthropicCache: on a session's second turn the request carries the two
// breakpoints, the system prompt's end and the previous turn's end; the
// cache reads the provider reports reach the usage ledger and /metrics.
func anthropicCache(t *testing.T, r *chatRig) {
	t.Helper()
	r.chat("fay", "first turn")
	r.llm.Script(fakellm.Reply{Text: "second answer", Usage: &fakellm.Usage{PromptTokens: 5000, CompletionTokens: 12,
		Details: &fakellm.UsageDetails{CachedTokens: 4000, CacheWriteTokens: 900}}})
	r.chat("fay", "second turn")
	req := llmLast(t, r.llm)
	b := anthropicRequest(t, req)
	if len(b.System) == 0 || b.System[0].CacheControl == nil {
		t.Errorf("the system prompt's first block has no breakpoint: %+v", b.System)
	}
	var marked []string
	for _, m := range b.Messages {
		for _, blk := range m.Content {
			if blk.CacheControl != nil {
				marked = append(marked, m.Role+": "+blk.Text)
			}
		}
	}
	if diff := cmp.Diff([]string{"assistant: echo: first turn"}, marked); diff != "" {
		t.Errorf("message breakpoints (-want +got):\n%s", diff)
	}
	if n := strings.Count(string(req.Body), `"cache_control"`); n != 2 {
		t.Errorf("%d breakpoints, want 2", n)
	}
	var rep protocol.UsageReport
	if out := r.h.must("usage", "--json").stdout; json.Unmarshal([]byte(out), &rep) != nil || rep.Total.Cached != 4000 {
		t.Errorf("usage --json: cached %d, want 4000 (%+v)", rep.Total.Cached, rep.Total)
	}
	if got := metric(t, r.addr, `beamclaw_llm_tokens_total{kind="cached",model="fake-model",provider="claude"}`); got != 4000 {
		t.Errorf("cached tokens on /metrics = %v, want 4000", got)
	}
}

// anthropicFallback: a 529 overloaded with retry-after falls over to the
// next provider, and the primary cools down (the next turn goes to the
// backup without a paid call to it).
func anthropicFallback(t *testing.T, r *chatRig, backup *fakellm.Server) {
	t.Helper()
	r.llm.Script(fakellm.Reply{Status: fakellm.StatusOverloaded, RetryAfter: time.Minute})
	before := len(r.llm.Requests())
	if got := r.chat("gus", "are you there?"); got != "echo: are you there?" || len(backup.Requests()) != 1 {
		t.Fatalf("after a 529: answer %q, the backup asked %d times", got, len(backup.Requests()))
	}
	pollUntil(t, 10*time.Second, "an llm_attempt event", func() bool { return strings.Contains(r.h.logs(), "llm_attempt") })
	r.chat("hal", "still there?")
	if n := len(r.llm.Requests()) - before; n != 1 || len(backup.Requests()) != 2 {
		t.Errorf("the cooling primary got %d calls (want 1, the 529), the backup %d (want 2)", n, len(backup.Requests()))
	}
}
