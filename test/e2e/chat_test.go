package e2e

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestChatOpenAISDK drives /v1/chat/completions with the official OpenAI
// Go SDK: a plain and a streamed completion of one stored session, and an
// unknown model.
func TestChatOpenAISDK(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.start()
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	c := openai.NewClient(option.WithBaseURL("http://"+r.addr+"/v1"), option.WithAPIKey("unused"),
		option.WithHTTPClient(hc), option.WithMaxRetries(0))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r.llm.Script(fakellm.Reply{Text: "Paris is the capital of France."},
		fakellm.Reply{Chunks: []string{"Bonjour", ", ", "Ana", "!"}})

	comp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "default", User: openai.String("ana"),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the capital of France?")}})
	if err != nil {
		t.Fatalf("plain completion: %v", err)
	}
	if len(comp.Choices) != 1 || comp.Choices[0].Message.Content != "Paris is the capital of France." {
		t.Fatalf("plain answer: %+v", comp.Choices)
	}
	if comp.Choices[0].FinishReason != "stop" || comp.Usage.TotalTokens == 0 || comp.Object != "chat.completion" {
		t.Errorf("plain: finish %q, usage %+v, object %q", comp.Choices[0].FinishReason, comp.Usage, comp.Object)
	}

	acc, chunks := sdkStream(ctx, t, c, openai.ChatCompletionNewParams{Model: "default", User: openai.String("ana"),
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello to me.")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}})
	if len(acc.Choices) != 1 || acc.Choices[0].Message.Content != "Bonjour, Ana!" {
		t.Fatalf("streamed answer: %+v", acc.Choices)
	}
	if acc.Choices[0].FinishReason != "stop" || acc.Usage.TotalTokens == 0 || chunks < 2 {
		t.Errorf("stream: finish %q, usage %+v, %d chunks", acc.Choices[0].FinishReason, acc.Usage, chunks)
	}
	// With a user id the stored history is authoritative: the second turn
	// reaches the provider with the first one.
	want := []string{"user: What is the capital of France?", "assistant: Paris is the capital of France.", "user: Say hello to me."}
	if diff := cmp.Diff(want, llmConversation(llmLast(t, r.llm))); diff != "" {
		t.Errorf("second provider request (-want +got):\n%s", diff)
	}

	_, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "no-such-agent",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("unknown model: want *openai.Error, got %v", err)
	}
	if apiErr.StatusCode != http.StatusNotFound || apiErr.Code != "model_not_found" {
		t.Errorf("unknown model: status %d code %q type %q", apiErr.StatusCode, apiErr.Code, apiErr.Type)
	}
}

// TestChatKill9KeepsHistory kills the daemon between turns: after a
// restart the next turn reaches the provider with the whole history.
func TestChatKill9KeepsHistory(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.start()
	a1 := r.chat("ana", "first: my cat is called Miso")
	a2 := r.chat("ana", "second: she is three years old")
	oldPID := r.pid
	r.kill9()
	r.start()
	if r.pid == oldPID {
		t.Fatal("same pid after restart")
	}
	if got := r.chat("ana", "third: what do you know about her?"); got != "echo: third: what do you know about her?" {
		t.Errorf("third answer %q", got)
	}
	want := []string{
		"user: first: my cat is called Miso", "assistant: " + a1,
		"user: second: she is three years old", "assistant: " + a2,
		"user: third: what do you know about her?",
	}
	if diff := cmp.Diff(want, llmConversation(llmLast(t, r.llm))); diff != "" {
		t.Errorf("provider request after kill -9 (-want +got):\n%s", diff)
	}
}

// TestChatFallbackOn429 answers from the fallback provider when the
// primary one is rate limited.
func TestChatFallbackOn429(t *testing.T) {
	backup := fakellm.New(t)
	r := newChatRig(t, rigOptions{fakeName: "primary", providers: map[string]string{"backup": backup.URL()},
		fallback: []string{"backup"}})
	r.llm.SetDefault(func(fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Status: http.StatusTooManyRequests, Error: "primary is rate limited"}
	})
	backup.Script(fakellm.Reply{Text: "answered by backup"})
	r.start()
	if got := r.chat("ana", "hello?"); got != "answered by backup" {
		t.Errorf("answer %q, want the backup's", got)
	}
	// The rig sets max_retries: 0, which config validation documents as
	// "no retries" (range 0-10); a negative value, which the provider
	// reads as "none", is refused by validation.
	if n := len(r.llm.Requests()); n != 1 {
		t.Errorf("primary got %d requests with max_retries: 0, want exactly 1", n)
	}
	if n := len(backup.Requests()); n != 1 {
		t.Errorf("backup got %d requests, want 1", n)
	}
}

// TestChatScrubCanary plants secrets in a provider answer and in a file a
// tool reads, and checks that neither reaches the client, the database,
// the log, the metrics or the next provider request.
func TestChatScrubCanary(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"http": "full"}})
	r.h.must("agent", "create", "default")
	modelSecret := canarySecret(t, "sk-proj-", 40)
	fileSecret := canarySecret(t, "ghp_", 36)
	putFile(t, r.agentFile("creds.txt"), "deploy key: "+fileSecret+"\n")
	r.llm.SetDefault(fakellm.Rules)
	r.llm.Script(fakellm.Reply{Text: "Your key is " + modelSecret + "; let me read the file.",
		ToolCalls: []fakellm.ToolCall{{ID: "call_read", Name: "read_file", Arguments: `{"path":"creds.txt"}`}}})
	r.start()

	code, body := r.post("ana", "canary-turn-marker: show me creds.txt")
	if code != http.StatusOK {
		t.Fatalf("chat: %d %s", code, body)
	}
	reqs := r.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("provider got %d requests, want 2 (the tool result goes back)", len(reqs))
	}
	results := llmToolResults(reqs[1])
	if len(results) != 1 || !strings.Contains(results[0], "[REDACTED]") {
		t.Errorf("tool result sent to the model is not redacted: %q", results)
	}
	if !strings.Contains(body, "[REDACTED]") {
		t.Errorf("answer shows no redaction: %s", body)
	}
	_, metrics := get(t, "http://"+r.addr+"/metrics")
	http.DefaultClient.CloseIdleConnections()
	r.h.must("stop")
	db, err := os.ReadFile(filepath.Join(r.h.dir, "beamclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(db), "canary-turn-marker") {
		t.Error("the turn is not in beamclaw.db: the byte check below proves nothing")
	}
	places := map[string]string{
		"HTTP response":         body,
		"beamclaw.db":           string(db),
		"daemon log":            r.h.logs(),
		"/metrics":              metrics,
		"next provider request": string(reqs[1].Body),
	}
	for place, text := range places {
		for name, secret := range map[string]string{"model's": modelSecret, "file's": fileSecret} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s secret leaked into the %s", name, place)
			}
		}
	}
}

// TestChatBrokenStream cuts the provider's stream after two chunks: the
// WebSocket client gets exactly one final or error for the run, and the
// next turn works; the same holds over /v1/chat/completions.
func TestChatBrokenStream(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.start()
	broken := fakellm.Reply{Chunks: []string{"one ", "two ", "three ", "four"}, BreakAfter: 2}
	r.llm.Script(broken)
	conn := r.dial("ana")
	first := sendRun(t, conn, "tell me a story", nil)
	if first.err == nil && first.final == nil {
		t.Fatal("no terminal frame")
	}
	t.Logf("broken stream over ws ended with final=%v error=%v", first.final != nil, first.err != nil)
	second := sendRun(t, conn, "are you there?", nil)
	if got := second.finalText(t); got != "echo: are you there?" {
		t.Errorf("next turn answered %q", got)
	}
	for _, f := range second.stray {
		if f.RunID == first.runID && (f.Type == "final" || f.Type == "error") {
			t.Errorf("a second terminal frame for the broken run: %+v", f)
		}
	}

	r.llm.Script(broken)
	code, body := r.post("bob", "tell me a story")
	if code != http.StatusOK && !strings.Contains(body, `"error"`) {
		t.Errorf("broken stream over HTTP: %d %s", code, body)
	}
	t.Logf("broken stream over http: %d %s", code, body)
	if got := r.chat("bob", "still there?"); got != "echo: still there?" {
		t.Errorf("next HTTP turn answered %q", got)
	}
}
