package daemon

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// core.providers.<name>.kind reaches the plan, and each client is built
// by the adapter registered for its kind; a kind with no adapter is an
// error naming the kinds there are.
func TestProviderKindPicksTheAdapter(t *testing.T) {
	p, err := buildPlan(config.Loaded{Config: mustParse(t, consumedBase), Paths: config.NewPaths("/home/test"), Keys: map[string]int{}},
		func(string) string { return "key-0123456789abcdefghijklmnopqrstuvwxyz" })
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range p.Providers.Clients {
		if s.Kind != provider.DefaultKind || s.Name != name {
			t.Fatalf("plan's provider %s = %+v: want its name and kind %q", name, s, provider.DefaultKind)
		}
	}
	built := map[string]string{} // provider name → the adapter kind that built it
	errBuilt := errors.New("built by the test adapter")
	adapter := func(kind string) provider.Adapter {
		return provider.Adapter{Kind: kind, New: func(s provider.Settings, _ *slog.Logger) (beamclaw.Provider, error) {
			built[s.Name] = kind
			return nil, errBuilt
		}}
	}
	pp := providerPlan{Default: "a", Clients: map[string]provider.Settings{"a": {Name: "a", Kind: "native"}}}
	if _, err := newProviders(pp, []provider.Adapter{adapter("openai"), adapter("native")}, nil, nil); !errors.Is(err, errBuilt) || built["a"] != "native" {
		t.Fatalf("newProviders = %v; built %v; want provider a built by the native adapter", err, built)
	}
	_, err = newProviders(pp, []provider.Adapter{adapter("openai")}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), `"native"`) || !strings.Contains(err.Error(), "openai") {
		t.Fatalf("a kind with no adapter: %v", err)
	}
}

// named is a provider that is only its name and key.
type named struct{ name, key string }

func (n named) Name() string { return n.name }
func (n named) Chat(context.Context, beamclaw.ChatRequest, func(string)) (beamclaw.ChatResponse, error) {
	return beamclaw.ChatResponse{}, nil
}

// An agent's own fallback_providers make its chain; a provider's
// api_keys are more entries of it, each a client with its own key.
func TestAgentChainsAndSpareKeys(t *testing.T) {
	var keys []string
	adapter := provider.Adapter{Kind: "openai", New: func(s provider.Settings, _ *slog.Logger) (beamclaw.Provider, error) {
		keys = append(keys, s.Name+"="+s.APIKey)
		return named{s.Name, s.APIKey}, nil
	}}
	pp := providerPlan{Default: "a", Fallbacks: []string{"b"},
		Clients: map[string]provider.Settings{
			"a": {Name: "a", Kind: "openai", APIKey: "ka1", SpareKeys: []string{"ka2"}},
			"b": {Name: "b", Kind: "openai", APIKey: "kb"},
			"c": {Name: "c", Kind: "openai", APIKey: "kc"},
		},
		Agents: map[string]agentChoice{"coder": {Fallbacks: []string{"c"}}}}
	p, err := newProviders(pp, []provider.Adapter{adapter}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	order := func(agent string) []string {
		c, _, err := p.forAgent(agent)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range c.(*provider.Chain).Providers() {
			out = append(out, e.Name()+"="+e.(named).key)
		}
		return out
	}
	if got := strings.Join(order("default"), ","); got != "a=ka1,a=ka2,b=kb" {
		t.Errorf("the default chain: %s", got)
	}
	if got := strings.Join(order("coder"), ","); got != "a=ka1,a=ka2,c=kc" {
		t.Errorf("coder's own chain: %s", got)
	}
}
