package gateway

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// BenchmarkOpenAIChatCompletion measures the handler's own overhead (the
// gateway's middleware included, no network) for a completion, or a
// response, answered at once by the fake sessions.
func BenchmarkOpenAIChatCompletion(b *testing.B) {
	cases := []struct{ name, path, body string }{
		{"ephemeral", "/v1/chat/completions", `{"model":"default","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hello there"}]}`},
		{"session", "/v1/chat/completions", `{"model":"default","user":"bench","messages":[{"role":"user","content":"hello there"}]}`},
		{"stream", "/v1/chat/completions", `{"model":"default","stream":true,"messages":[{"role":"user","content":"hello there"}]}`},
		// The same stored turn over the Responses API.
		{"responses", "/v1/responses", `{"model":"default","user":"bench","input":"hello there"}`},
		{"responses-stream", "/v1/responses", `{"model":"default","user":"bench","stream":true,"input":"hello there"}`},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			fake := &oaiSessions{events: []beamclaw.RunEvent{oaiChunk("Hello "), oaiChunk("to you."), oaiFinal("Hello to you.", 10, 4)}}
			o := NewOpenAI(OpenAIOptions{Sessions: fake, Agents: oaiAgents{"default"}})
			h := New(Options{Routes: o.Routes()}).PublicHandler()
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, bc.path, strings.NewReader(bc.body))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
			fake.wg.Wait()
		})
	}
}
