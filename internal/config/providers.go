package config

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/provider/anthropic"
	"github.com/beamclaw/beamclaw-go/internal/provider/openai"
)

// ProviderAdapters are the registered kinds of core.providers.<name>.kind:
// a native provider adapter is its package and a line here.
func ProviderAdapters() []provider.Adapter {
	return []provider.Adapter{openai.Adapter(), anthropic.Adapter()}
}

// ProviderProblems names, in the environment getenv sees, every provider
// in use (an agent's chain, the fallbacks, the compaction provider) whose
// key variable is unset, and every agent left without a usable provider
// (each provider of its chain lacks its key),
// so that `beamclaw start` and `doctor` say so instead of a first chat
// failing. agents are the agents with a workspace; the configured
// core.agents are added.
func (c *Config) ProviderProblems(getenv func(string) string, agents []string) []string {
	var out []string
	all := slices.Clone(agents)
	for name := range c.Core.Agents {
		if !slices.Contains(all, name) {
			all = append(all, name)
		}
	}
	sort.Strings(all)
	used := []string{}
	for _, agent := range all {
		used = append(used, c.chainOf(agent)...)
	}
	if cp := c.Core.AgenticLoop.CompactionProvider; cp != "" {
		used = append(used, cp)
	}
	sort.Strings(used)
	used = slices.Compact(used)
	usable := map[string]bool{}
	for _, name := range used {
		p, ok := c.Core.Providers[name]
		_, set := p.APIKey.Resolve(getenv)
		usable[name] = ok && (p.APIKey.IsZero() || set)
		if ok && !usable[name] {
			out = append(out, fmt.Sprintf("provider %s: %s is not set, so every call to it fails (export it before starting)", name, p.APIKey.Env))
		}
	}
	for _, agent := range all {
		chain := c.chainOf(agent)
		if !slices.ContainsFunc(chain, func(p string) bool { return usable[p] }) {
			out = append(out, fmt.Sprintf("agent %s has no usable provider: no key for %s (set it, or name a provider with one in core.agents.%s.provider)",
				agent, strings.Join(chain, ", "), agent))
		}
	}
	return out
}

// chainOf is the providers an agent's turns try in order: its own (or the
// default), then the fallbacks.
func (c *Config) chainOf(agent string) []string {
	first := c.Core.DefaultProvider
	if a, ok := c.Core.Agents[agent]; ok && a.Provider != "" {
		first = a.Provider
	}
	return provider.ChainOf(first, c.Core.FallbackProviders)
}

// AgentNames are the agents with a workspace under AgentsDir, and the
// default agent (its workspace is made at start).
func (p Paths) AgentNames(defaultAgent string) []string {
	names := []string{defaultAgent}
	entries, _ := os.ReadDir(p.AgentsDir) // none yet: only the default agent
	for _, e := range entries {
		if e.IsDir() && e.Name() != defaultAgent && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}
