package provider_test

import (
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// An entry the file adds takes the defaults; its kind must be registered,
// and every bad value is named by its key.
func TestConfigValidate(t *testing.T) {
	var c provider.Config
	c.SetDefaults()
	c.BaseURL, c.Model = "http://127.0.0.1:11434/v1", "llama3.2"
	var p setting.Problems
	adapters := []provider.Adapter{{Kind: "openai"}, {Kind: "hosted", BaseURL: "https://api.example.com"}}
	c.Validate(p.Under("core.providers.local"), adapters)
	if err := p.Err(); err != nil {
		t.Fatalf("defaults with a URL and a model: %v", err)
	}
	c.Kind, c.BaseURL, c.Model, c.MaxRetries, c.TimeoutSeconds = "anthropic-ish", "ftp://x", " ", 11, 0
	var bad setting.Problems
	c.Validate(bad.Under("core.providers.local"), adapters)
	got := bad.Err().Error()
	for _, key := range []string{"kind", "base_url", "model", "max_retries", "timeout_seconds"} {
		if !strings.Contains(got, "core.providers.local."+key) {
			t.Errorf("no problem named core.providers.local.%s in:\n%s", key, got)
		}
	}
	// base_url is required unless the kind's adapter has a default
	c.SetDefaults()
	c.Model, c.BaseURL = "m", ""
	for kind, wantProblem := range map[string]bool{"openai": true, "hosted": false} {
		c.Kind = kind
		var p setting.Problems
		c.Validate(p.Under("core.providers.x"), adapters)
		if got := p.Err() != nil && strings.Contains(p.Err().Error(), "base_url"); got != wantProblem {
			t.Errorf("kind %s without base_url: a problem = %v, want %v (%v)", kind, got, wantProblem, p.Err())
		}
	}
}

// Settings carry the entry's values, its key resolved and its seconds as
// durations; max_retries 0 stays "none".
func TestConfigSettings(t *testing.T) {
	c := provider.Config{Kind: "openai", APIKey: setting.Secret{Env: "K"}, BaseURL: "https://x/v1", Model: "m",
		TimeoutSeconds: 30, FirstTokenTimeoutSeconds: 5}
	s := c.Settings("x", func(k string) string { return map[string]string{"K": "sk-1"}[k] })
	want := provider.Settings{Name: "x", Kind: "openai", BaseURL: "https://x/v1", APIKey: "sk-1", Model: "m",
		Timeout: 30 * time.Second, FirstTokenTimeout: 5 * time.Second}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("Settings = %+v, want %+v", s, want)
	}
}

func TestFind(t *testing.T) {
	errNo := errors.New("not built")
	adapters := []provider.Adapter{
		{Kind: "a", New: func(provider.Settings, *slog.Logger) (beamclaw.Provider, error) { return nil, errNo }},
		{Kind: "b"},
	}
	if got := provider.Kinds(adapters); strings.Join(got, ",") != "a,b" {
		t.Fatalf("Kinds = %v", got)
	}
	a, ok := provider.Find(adapters, "a")
	if !ok || a.Kind != "a" {
		t.Fatalf("Find(a) = %+v, %v", a, ok)
	}
	if _, err := a.New(provider.Settings{}, nil); !errors.Is(err, errNo) {
		t.Fatalf("the found adapter is not the registered one: %v", err)
	}
	if _, ok := provider.Find(adapters, "c"); ok {
		t.Fatal("Find(c) found an adapter that is not registered")
	}
}
