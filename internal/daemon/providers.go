package daemon

import (
	"fmt"
	"log/slog"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// providers holds one client per configured provider and answers, per
// agent, with the provider chain (the agent's or the default provider,
// then core.fallback_providers) and the model to ask for.
type providers struct {
	plan    providerPlan
	clients map[string]beamclaw.Provider
	chains  map[string]beamclaw.Provider // by first provider name
	log     *slog.Logger
	emit    provider.Emitter // the chains' llm_attempt events
}

// newProviders builds the clients, each by the adapter of its kind, and
// every chain an agent can name, before any run starts (forAgent then
// only reads maps).
func newProviders(pp providerPlan, adapters []provider.Adapter, log *slog.Logger, emit provider.Emitter) (*providers, error) {
	p := &providers{plan: pp, clients: map[string]beamclaw.Provider{}, chains: map[string]beamclaw.Provider{}, log: log, emit: emit}
	for name, s := range pp.Clients {
		a, ok := provider.Find(adapters, s.Kind)
		if !ok {
			return nil, fmt.Errorf("provider %s: no adapter of kind %q (have %v)", name, s.Kind, provider.Kinds(adapters))
		}
		c, err := a.New(s, log)
		if err != nil {
			return nil, fmt.Errorf("provider %s: %w", name, err)
		}
		p.clients[name] = c
	}
	names := []string{pp.Default}
	for _, a := range pp.Agents {
		if a.Provider != "" {
			names = append(names, a.Provider)
		}
	}
	for _, n := range names {
		if _, err := p.chain(n); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// chain returns first followed by the fallbacks (without repeating it).
func (p *providers) chain(first string) (beamclaw.Provider, error) {
	if c, ok := p.chains[first]; ok {
		return c, nil
	}
	var list []beamclaw.Provider
	for _, name := range provider.ChainOf(first, p.plan.Fallbacks) {
		c, ok := p.clients[name]
		switch {
		case ok:
			list = append(list, c)
		case name == first:
			return nil, fmt.Errorf("no provider %q configured", first)
		}
	}
	if len(list) == 1 {
		p.chains[first] = list[0]
		return list[0], nil
	}
	chain, err := provider.NewChain(provider.ChainOptions{Logger: p.log, Emitter: p.emit}, list...)
	if err != nil {
		return nil, err
	}
	p.chains[first] = chain
	return chain, nil
}

// forAgent is the loop's ProviderFunc.
func (p *providers) forAgent(agentID string) (beamclaw.Provider, string, error) {
	name, model := p.plan.Default, ""
	if a, ok := p.plan.Agents[agentID]; ok {
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
		model = p.plan.Clients[name].Model
	}
	return c, model, nil
}

// window is the loop's WindowFunc: a configured context_window wins over
// the table of known models.
func (p *providers) window(model string) int {
	if w, ok := p.plan.Windows[model]; ok {
		return w
	}
	return provider.ContextWindow(model)
}
