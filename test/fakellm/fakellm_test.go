package fakellm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sdk returns the official OpenAI Go client pointed at srv.
func sdk(t *testing.T, srv *fakellm.Server) openai.Client {
	t.Helper()
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	return openai.NewClient(option.WithBaseURL(srv.URL()), option.WithAPIKey("sk-fake"),
		option.WithHTTPClient(hc), option.WithMaxRetries(0))
}

func TestSDKPlainCompletionEchoes(t *testing.T) {
	srv := fakellm.New(t)
	client := sdk(t, srv)
	resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("sys"), openai.UserMessage("hello there")},
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if got := resp.Choices[0].Message.Content; got != "echo: hello there" {
		t.Errorf("content = %q", got)
	}
	if resp.Model != "gpt-test" || resp.Usage.TotalTokens == 0 || resp.Choices[0].FinishReason != "stop" {
		t.Errorf("response = %+v", resp)
	}
	reqs := srv.Requests()
	want := []fakellm.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "hello there"}}
	if diff := cmp.Diff(want, reqs[0].Messages); len(reqs) != 1 || diff != "" {
		t.Errorf("recorded messages (-want +got):\n%s", diff)
	}
}

func TestSDKStreamToolCallsAndUsage(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{
		Text:      "Checking.",
		ToolCalls: []fakellm.ToolCall{{ID: "call_x", Name: "get_weather", Arguments: `{"city":"Lisbon","unit":"celsius"}`}},
		Usage:     &fakellm.Usage{PromptTokens: 7, CompletionTokens: 9, TotalTokens: 16},
	})
	client := sdk(t, srv)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:         "gpt-test",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather?")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: "get_weather", Parameters: openai.FunctionParameters{"type": "object"},
		})},
	})
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	_ = stream.Close()
	msg := acc.Choices[0].Message
	if msg.Content != "Checking." || len(msg.ToolCalls) != 1 {
		t.Fatalf("message = %+v", msg)
	}
	tc := msg.ToolCalls[0]
	if tc.ID != "call_x" || tc.Function.Name != "get_weather" || tc.Function.Arguments != `{"city":"Lisbon","unit":"celsius"}` {
		t.Errorf("tool call = %+v", tc)
	}
	if acc.Usage.TotalTokens != 16 || acc.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("usage %+v finish %q", acc.Usage, acc.Choices[0].FinishReason)
	}
	req := srv.Requests()[0]
	if !req.Stream || !req.IncludeUsage || len(req.Tools) != 1 || req.Tools[0].Name != "get_weather" {
		t.Errorf("recorded request = %+v", req)
	}
}

func TestSDKErrorStatus(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Status: 429, Error: "slow down", RetryAfter: 1500 * time.Millisecond})
	client := sdk(t, srv)
	_, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")},
	})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Message != "slow down" {
		t.Fatalf("err = %v", err)
	}
	if got := apiErr.Response.Header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After = %q, want 2 (rounded up)", got)
	}
}

func TestSDKEmbeddingsModelsTranscription(t *testing.T) {
	srv := fakellm.New(t)
	client := sdk(t, srv)
	ctx := context.Background()
	emb, err := client.Embeddings.New(ctx, openai.EmbeddingNewParams{
		Model: "text-embedding-3-small", Dimensions: openai.Int(16),
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"red apple", "green apple"}},
	})
	if err != nil {
		t.Fatalf("embeddings: %v", err)
	}
	if len(emb.Data) != 2 || len(emb.Data[1].Embedding) != 16 {
		t.Fatalf("embeddings = %+v", emb.Data)
	}
	want := fakellm.Vector("green apple", 16)
	for i, x := range emb.Data[1].Embedding {
		if float32(x) != want[i] {
			t.Fatalf("embedding[%d] = %v, want %v", i, x, want[i])
		}
	}
	models, err := client.Models.List(ctx)
	if err != nil || len(models.Data) == 0 || models.Data[0].ID != fakellm.DefaultModel {
		t.Fatalf("models = %+v, %v", models, err)
	}
	tr, err := client.Audio.Transcriptions.New(ctx, openai.AudioTranscriptionNewParams{
		File: openai.File(strings.NewReader("OggS"), "voice.ogg", "audio/ogg"), Model: "whisper-1",
	})
	if err != nil || tr.Text != fakellm.DefaultTranscript {
		t.Fatalf("transcription = %+v, %v", tr, err)
	}
}

func TestVectorSimilarity(t *testing.T) {
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	a, b, c := fakellm.Vector("the quick brown fox", 64), fakellm.Vector("a quick brown fox!", 64), fakellm.Vector("tax law", 64)
	if dot(a, a) < 0.999 || dot(a, a) > 1.001 {
		t.Errorf("not normalised: %v", dot(a, a))
	}
	if dot(a, b) <= dot(a, c) {
		t.Errorf("similar %v <= unrelated %v", dot(a, b), dot(a, c))
	}
	if e := fakellm.Vector("", 4); e[0] != 1 {
		t.Errorf("empty text vector = %v", e)
	}
}

func TestControlEndpoints(t *testing.T) {
	srv := fakellm.New(t)
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	base := strings.TrimSuffix(srv.URL(), "/v1")
	script := `[{"text":"scripted one"},{"status":500,"retry_after":"1s","chunk_delay":0.01}]`
	res, err := hc.Post(base+"/__script", "application/json", strings.NewReader(script))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("/__script: %v %v", res, err)
	}
	res.Body.Close()
	chat := func(content string) (int, string) {
		body := `{"model":"m","messages":[{"role":"user","content":` + quote(content) + `}]}`
		res, err := hc.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := chat("a"); code != 200 || !strings.Contains(body, "scripted one") {
		t.Errorf("first = %d %s", code, body)
	}
	if code, _ := chat("b"); code != 500 {
		t.Errorf("second = %d, want 500", code)
	}
	if code, body := chat("c"); code != 200 || !strings.Contains(body, "echo: c") {
		t.Errorf("third = %d %s", code, body)
	}
	res, err = hc.Get(base + "/__requests")
	if err != nil {
		t.Fatal(err)
	}
	var got []fakellm.Request
	err = json.NewDecoder(res.Body).Decode(&got)
	res.Body.Close()
	if err != nil || len(got) != 3 || got[2].LastUser() != "c" {
		t.Fatalf("/__requests = %+v, %v", got, err)
	}
	res, err = hc.Post(base+"/__reset", "application/json", nil)
	if err != nil || res.StatusCode != http.StatusNoContent || len(srv.Requests()) != 0 {
		t.Fatalf("/__reset: %v %v", res, err)
	}
	res.Body.Close()
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestReplyJSONRoundTrip(t *testing.T) {
	in := fakellm.Reply{Text: "t", Status: 429, RetryAfter: 3 * time.Second, ChunkDelay: 20 * time.Millisecond,
		ToolCalls: []fakellm.ToolCall{{Name: "n", Arguments: "{}"}}, BreakAfter: 2}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"retry_after":"3s"`)) {
		t.Errorf("json = %s", b)
	}
	var out fakellm.Reply
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out, cmp.AllowUnexported()); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`{"retry_after":"soon"}`), &out); err == nil {
		t.Error("bad duration accepted")
	}
}

// A scripted StreamError ends an OpenAI stream with an error chunk after
// the text.
func TestSDKStreamError(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Chunks: []string{"partial "}, StreamError: 429, Error: "slow down"})
	client := sdk(t, srv)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")},
	})
	var text string
	for stream.Next() {
		if c := stream.Current(); len(c.Choices) > 0 {
			text += c.Choices[0].Delta.Content
		}
	}
	_ = stream.Close()
	if err := stream.Err(); err == nil || !strings.Contains(err.Error(), "slow down") || text != "partial " {
		t.Fatalf("stream error = %v after %q, want the scripted error after the text", err, text)
	}
}

// A reply with NoUsage reports no usage, streamed (even when the request
// asked for it) or not: a provider that gives none.
func TestNoUsage(t *testing.T) {
	srv := fakellm.New(t)
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	for _, stream := range []bool{false, true} {
		srv.Script(fakellm.Reply{Text: "hi", NoUsage: true}, fakellm.Reply{Text: "hi"})
		for i, want := range []bool{false, true} {
			body := fmt.Sprintf(`{"model": "m", "stream": %t, "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "x"}]}`, stream)
			if !stream {
				body = `{"model": "m", "messages": [{"role": "user", "content": "x"}]}`
			}
			resp, err := hc.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if got := strings.Contains(string(b), `"usage"`); got != want {
				t.Errorf("stream %t, reply %d: usage in the answer %t, want %t:\n%s", stream, i, got, want, b)
			}
		}
	}
}
