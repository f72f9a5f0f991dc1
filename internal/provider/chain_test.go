package provider_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/provider/openai"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func TestChainFallsOver(t *testing.T) {
	tests := []struct {
		name         string
		primary      fakellm.Reply
		wantProvider string
		wantText     string
		wantKind     beamclaw.Kind // when an error is expected
		wantErr      bool
	}{
		{name: "primary answers", primary: fakellm.Reply{Text: "from primary"}, wantProvider: "primary", wantText: "from primary"},
		{name: "500 falls over", primary: fakellm.Reply{Status: 500}, wantProvider: "fallback", wantText: "echo: hello"},
		{name: "429 falls over", primary: fakellm.Reply{Status: 429}, wantProvider: "fallback", wantText: "echo: hello"},
		{name: "dropped connection falls over", primary: fakellm.Reply{Drop: true}, wantProvider: "fallback", wantText: "echo: hello"},
		{name: "400 does not fall over", primary: fakellm.Reply{Status: 400}, wantProvider: "primary", wantErr: true, wantKind: beamclaw.KindInvalid},
		{name: "break after text does not fall over", primary: fakellm.Reply{Chunks: []string{"par", "tial"}, BreakAfter: 1},
			wantProvider: "primary", wantErr: true, wantKind: beamclaw.KindUnavailable, wantText: "par"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p1, p2 := fakellm.New(t), fakellm.New(t)
			p1.Script(tt.primary)
			c1 := client(t, p1, openai.Options{Name: "primary", MaxRetries: -1, Model: "model-a"})
			c2 := client(t, p2, openai.Options{Name: "fallback", Model: "model-b"})
			chain, err := provider.NewChain(provider.ChainOptions{}, c1, c2)
			if err != nil {
				t.Fatal(err)
			}
			var got collected
			req := beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hello"}}}
			req.Model = "primary-only-model"
			resp, err := chain.Chat(context.Background(), req, got.add)
			if tt.wantErr {
				if beamclaw.KindOf(err) != tt.wantKind {
					t.Fatalf("err = %v, want kind %v", err, tt.wantKind)
				}
				if len(p2.Requests()) != 0 {
					t.Errorf("fallback was asked")
				}
			} else if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if resp.Provider != tt.wantProvider || got.text() != tt.wantText {
				t.Errorf("provider %q text %q, want %q %q", resp.Provider, got.text(), tt.wantProvider, tt.wantText)
			}
			if reqs := p2.Requests(); len(reqs) == 1 && reqs[0].Model != "model-b" {
				t.Errorf("fallback got model %q, want its own model-b", reqs[0].Model)
			}
			if chain.Name() != "primary" {
				t.Errorf("Name = %q", chain.Name())
			}
		})
	}
}

func TestNewChainNeedsProviders(t *testing.T) {
	if _, err := provider.NewChain(provider.ChainOptions{}); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Fatalf("err = %v", err)
	}
}

// client is a real OpenAI-compatible client of a fake provider, with no
// waits between retries.
func client(t *testing.T, srv *fakellm.Server, o openai.Options) *openai.Client {
	t.Helper()
	o.BaseURL, o.APIKey = srv.URL(), "sk-test-key-0123456789"
	o.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	c, err := openai.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// collected records the text pieces a provider streams.
type collected struct {
	mu sync.Mutex
	b  strings.Builder
}

func (c *collected) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.WriteString(s)
}

func (c *collected) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}
