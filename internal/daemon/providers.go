package daemon

import (
	"cmp"
	"fmt"
	"log/slog"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// providers holds one client per configured provider and answers, per
// agent, with the provider chain (the agent's or the default provider,
// then core.fallback_providers) and the model to ask for.
type providers struct {
	plan    providerPlan
	clients map[string][]beamclaw.Provider // a client per key, by provider name
	chains  map[string]beamclaw.Provider   // by first provider name
	log     *slog.Logger
	emit    provider.Emitter // the chains' llm_attempt events
	health  *provider.Health // every chain's: a provider cools down in all of them
}

// newProviders builds the clients, each by the adapter of its kind, and
// every chain an agent can name, before any run starts (forAgent then
// only reads maps).
func newProviders(pp providerPlan, adapters []provider.Adapter, log *slog.Logger, emit provider.Emitter) (*providers, error) {
	p := &providers{plan: pp, clients: map[string][]beamclaw.Provider{}, chains: map[string]beamclaw.Provider{}, log: log, emit: emit,
		health: provider.NewHealth()}
	for name, s := range pp.Clients {
		a, ok := provider.Find(adapters, s.Kind)
		if !ok {
			return nil, fmt.Errorf("provider %s: no adapter of kind %q (have %v)", name, s.Kind, provider.Kinds(adapters))
		}
		for _, key := range append([]string{s.APIKey}, s.SpareKeys...) {
			ks := s
			ks.APIKey, ks.SpareKeys = key, nil
			c, err := a.New(ks, log)
			if err != nil {
				return nil, fmt.Errorf("provider %s: %w", name, err)
			}
			p.clients[name] = append(p.clients[name], c)
		}
	}
	if _, err := p.chainOf(pp.Default, pp.Fallbacks); err != nil {
		return nil, err
	}
	for _, a := range pp.Agents {
		if _, err := p.chainOf(cmp.Or(a.Provider, pp.Default), p.fallbacksOf(a)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// fallbacksOf is an agent's fallback providers: its own
// (core.agents.<name>.fallback_providers), else core.fallback_providers.
func (p *providers) fallbacksOf(a agentChoice) []string {
	if len(a.Fallbacks) > 0 {
		return a.Fallbacks
	}
	return p.plan.Fallbacks
}

// chain returns first followed by core.fallback_providers.
func (p *providers) chain(first string) (beamclaw.Provider, error) {
	return p.chainOf(first, p.plan.Fallbacks)
}

// chainKey names a chain in the cache.
func chainKey(first string, fallbacks []string) string {
	return first + "\x00" + strings.Join(fallbacks, "\x00")
}

// chainOf returns first followed by fallbacks (without repeating it),
// each provider with every key it has, in order.
func (p *providers) chainOf(first string, fallbacks []string) (beamclaw.Provider, error) {
	key := chainKey(first, fallbacks)
	if c, ok := p.chains[key]; ok {
		return c, nil
	}
	var list []beamclaw.Provider
	for _, name := range provider.ChainOf(first, fallbacks) {
		cs, ok := p.clients[name]
		switch {
		case ok:
			list = append(list, cs...)
		case name == first:
			return nil, fmt.Errorf("no provider %q configured", first)
		}
	}
	if len(list) == 1 {
		p.chains[key] = list[0]
		return list[0], nil
	}
	chain, err := provider.NewChain(provider.ChainOptions{Logger: p.log, Emitter: p.emit, Window: p.window, Health: p.health}, list...)
	if err != nil {
		return nil, err
	}
	p.chains[key] = chain
	return chain, nil
}

// forAgent is the loop's ProviderFunc.
func (p *providers) forAgent(agentID string) (beamclaw.Provider, string, error) {
	name, model, fallbacks := p.plan.Default, "", p.plan.Fallbacks
	if a, ok := p.plan.Agents[agentID]; ok {
		if a.Provider != "" {
			name = a.Provider
		}
		model, fallbacks = a.Model, p.fallbacksOf(a)
	}
	c, ok := p.chains[chainKey(name, fallbacks)]
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
