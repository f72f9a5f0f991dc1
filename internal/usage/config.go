package usage

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is the usage keys of config.yaml's core section (inlined there:
// core.costs...). The package owns it: defaults, Validate, and Rates.
type Config struct {
	Costs   CostsConfig    `yaml:"costs"`
	Budgets []BudgetConfig `yaml:"budgets"`
}

// BudgetConfig is one entry of core.budgets.
type BudgetConfig struct {
	Scope          string  `yaml:"scope"`  // session | user | agent | global | background
	Period         string  `yaml:"period"` // day | month | total
	Tokens         int64   `yaml:"tokens"` // and/or usd
	USD            float64 `yaml:"usd"`
	Action         string  `yaml:"action"` // warn | block | route_down
	RouteDownModel string  `yaml:"route_down_model"`
	WarnPercent    int     `yaml:"warn_percent"`
}

// The values of a budget's keys.
var (
	Scopes  = []string{ScopeSession, ScopeUser, ScopeAgent, ScopeGlobal, ScopeBackground}
	Periods = []string{PeriodDay, PeriodMonth, PeriodTotal}
	Actions = []string{ActionWarn, ActionBlock, ActionRouteDown}
)

// DefaultWarnPercent is a budget's warn_percent when it sets none.
const DefaultWarnPercent = 80

// CostsConfig is core.costs.
type CostsConfig struct {
	// Rates prices models in US dollars per million tokens, keyed by
	// "provider/model" (a key of core.providers and the model it sends)
	// or the model alone.
	Rates map[string]RateConfig `yaml:"rates"`
}

// RateConfig is one entry of core.costs.rates.
type RateConfig struct {
	Input  float64 `yaml:"input"`
	Output float64 `yaml:"output"`
	Cached float64 `yaml:"cached"`
}

// DefaultConfig is the section when the file says nothing: no rates (every
// call is recorded, none priced).
func DefaultConfig() Config {
	return Config{Costs: CostsConfig{Rates: map[string]RateConfig{}}, Budgets: []BudgetConfig{}}
}

// Validate records every problem of the section under p (core).
func (c Config) Validate(p *setting.Problems) {
	keys := make([]string, 0, len(c.Costs.Rates))
	for k := range c.Costs.Rates {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		key, r := "costs.rates."+k, c.Costs.Rates[k]
		if strings.TrimSpace(k) == "" || strings.HasPrefix(k, "/") || strings.HasSuffix(k, "/") {
			p.Add(key, "a rate is keyed by provider/model or by the model")
		}
		for name, v := range map[string]float64{"input": r.Input, "output": r.Output, "cached": r.Cached} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) || v > 1e6 {
				p.Add(key+"."+name, "must be a price in US dollars per million tokens (0 to 1000000), got %v", v)
			}
		}
	}
	for i, b := range c.Budgets {
		b.validate(p, fmt.Sprintf("budgets[%d]", i))
	}
}

func (b BudgetConfig) validate(p *setting.Problems, key string) {
	p.Enum(key+".scope", b.Scope, Scopes)
	p.Enum(key+".period", b.Period, Periods)
	p.Enum(key+".action", b.Action, Actions)
	if b.Tokens < 0 {
		p.Add(key+".tokens", "must not be negative")
	}
	if b.USD < 0 || math.IsNaN(b.USD) || math.IsInf(b.USD, 0) {
		p.Add(key+".usd", "must be a positive amount of US dollars")
	}
	if b.Tokens == 0 && b.USD == 0 {
		p.Add(key, "limits nothing: give tokens, usd or both")
	}
	if b.Action == ActionRouteDown && b.RouteDownModel == "" {
		p.Add(key+".route_down_model", "is required with action route_down (the cheaper model calls go to)")
	}
	if b.WarnPercent < 0 || b.WarnPercent > 100 {
		p.Add(key+".warn_percent", "must be 0 to 100 (0: the default, %d)", DefaultWarnPercent)
	}
}

// BudgetList is the section's budgets as Budgets enforce them.
func (c Config) BudgetList() []Budget {
	out := make([]Budget, 0, len(c.Budgets))
	for _, b := range c.Budgets {
		warn := b.WarnPercent
		if warn == 0 {
			warn = DefaultWarnPercent
		}
		out = append(out, Budget{Scope: b.Scope, Period: b.Period, Tokens: b.Tokens, MicroUSD: int64(math.Round(b.USD * 1e6)),
			Action: b.Action, RouteDownModel: b.RouteDownModel, WarnPercent: warn})
	}
	return out
}

// Rates is the rate sheet of the section.
func (c Config) Rates() Rates {
	out := make(Rates, len(c.Costs.Rates))
	for k, r := range c.Costs.Rates {
		out[k] = Rate(r)
	}
	return out
}
