package openai_test

import (
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/provider/openai"
)

// The registered "openai" kind builds a client named as configured; a
// configured max_retries of 0 means none, not the client's default.
func TestAdapter(t *testing.T) {
	a := openai.Adapter()
	if a.Kind != provider.DefaultKind {
		t.Fatalf("Kind = %q, want the default kind %q", a.Kind, provider.DefaultKind)
	}
	p, err := a.New(provider.Settings{Name: "local", Kind: a.Kind, BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, nil)
	if err != nil || p.Name() != "local" {
		t.Fatalf("New = %v, %v; want a client named local", p, err)
	}
	if _, err := a.New(provider.Settings{Name: "x", BaseURL: "ftp://x"}, nil); err == nil {
		t.Fatal("a base URL that is not http(s) was accepted")
	}
	s := provider.Settings{Timeout: time.Minute, MaxRetries: 0}
	if o := openai.OptionsOf(s, nil); o.MaxRetries >= 0 || o.Timeout != time.Minute {
		t.Fatalf("OptionsOf(max_retries 0) = retries %d, timeout %v; want none (negative), 1m", o.MaxRetries, o.Timeout)
	}
	if o := openai.OptionsOf(provider.Settings{MaxRetries: 3}, nil); o.MaxRetries != 3 {
		t.Fatalf("OptionsOf(max_retries 3).MaxRetries = %d", o.MaxRetries)
	}
}
