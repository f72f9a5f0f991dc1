package daemon

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/provider/openai"
)

// providers builds one client per configured provider and answers, per
// agent, with the provider chain (the agent's or the default provider,
// then core.fallback_providers) and the model to ask for.
type providers struct {
	cfg     *config.Config
	clients map[string]*openai.Client
	chains  map[string]beamclaw.Provider // by first provider name
	log     *slog.Logger
}

func newProviders(cfg *config.Config, getenv func(string) string, log *slog.Logger) (*providers, error) {
	p := &providers{cfg: cfg, clients: map[string]*openai.Client{}, chains: map[string]beamclaw.Provider{}, log: log}
	for name, pc := range cfg.Core.Providers {
		key, _ := pc.APIKey.Resolve(getenv)
		retries := pc.MaxRetries
		if retries == 0 {
			retries = -1 // config's 0 means none; the client's 0 means its default
		}
		c, err := openai.New(openai.Options{
			Name: name, BaseURL: pc.BaseURL, APIKey: key, Model: pc.Model,
			Timeout:           time.Duration(pc.TimeoutSeconds) * time.Second,
			FirstTokenTimeout: time.Duration(pc.FirstTokenTimeoutSeconds) * time.Second,
			MaxRetries:        retries,
			Logger:            log,
		})
		if err != nil {
			return nil, fmt.Errorf("provider %s: %w", name, err)
		}
		p.clients[name] = c
	}
	return p, nil
}

// chain returns first followed by the fallbacks (without repeating it).
func (p *providers) chain(first string) (beamclaw.Provider, error) {
	if c, ok := p.chains[first]; ok {
		return c, nil
	}
	primary, ok := p.clients[first]
	if !ok {
		return nil, fmt.Errorf("no provider %q configured", first)
	}
	list := []beamclaw.Provider{primary}
	for _, name := range p.cfg.Core.FallbackProviders {
		if c, ok := p.clients[name]; ok && name != first {
			list = append(list, c)
		}
	}
	if len(list) == 1 {
		p.chains[first] = primary
		return primary, nil
	}
	chain, err := provider.NewChain(p.log, list...)
	if err != nil {
		return nil, err
	}
	p.chains[first] = chain
	return chain, nil
}

// forAgent is the loop's ProviderFunc. Chains are built up front by
// warm(), so this only reads maps.
func (p *providers) forAgent(agentID string) (beamclaw.Provider, string, error) {
	name, model := p.cfg.Core.DefaultProvider, ""
	if a, ok := p.cfg.Core.Agents[agentID]; ok {
		if a.Provider != "" {
			name = a.Provider
		}
		model = a.Model
	}
	c, ok := p.chains[name]
	if !ok {
		return nil, "", beamclaw.E("providers", beamclaw.KindUnavailable, "no provider configured for this agent",
			fmt.Errorf("provider %q", name))
	}
	if model == "" {
		model = p.cfg.Core.Providers[name].Model
	}
	return c, model, nil
}

// warm builds every chain an agent can name, before any run starts.
func (p *providers) warm() error {
	names := []string{p.cfg.Core.DefaultProvider}
	for _, a := range p.cfg.Core.Agents {
		if a.Provider != "" {
			names = append(names, a.Provider)
		}
	}
	for _, n := range names {
		if _, err := p.chain(n); err != nil {
			return err
		}
	}
	return nil
}

// window is the loop's WindowFunc: a configured context_window wins over
// the table of known models.
func (p *providers) window(model string) int {
	for _, pc := range p.cfg.Core.Providers {
		if pc.Model == model && pc.ContextWindow > 0 {
			return pc.ContextWindow
		}
	}
	return provider.ContextWindow(model)
}

// autonomy is an agent's configured autonomy.
func agentAutonomy(cfg *config.Config) func(string) beamclaw.Autonomy {
	def, err := beamclaw.ParseAutonomy(cfg.Core.AutonomyLevel)
	if err != nil {
		def = beamclaw.Supervised
	}
	return func(agentID string) beamclaw.Autonomy {
		if a, ok := cfg.Core.Agents[agentID]; ok && a.AutonomyLevel != "" {
			if v, err := beamclaw.ParseAutonomy(a.AutonomyLevel); err == nil {
				return v
			}
		}
		return def
	}
}
