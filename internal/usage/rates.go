package usage

import (
	"math"
	"strings"
)

// Rate is what a model costs, in US dollars per million tokens.
type Rate struct {
	Input  float64
	Output float64
	// Cached is the price of a prompt token read from the provider's cache
	// (0: the input price).
	Cached float64
}

// Rates is the rate sheet (core.costs.rates), keyed by "provider/model"
// or by the model alone (any provider).
type Rates map[string]Rate

// Price is the cost of a call in millionths of a dollar; ok is false when
// the sheet has no rate for the model.
func (r Rates) Price(provider, model string, in, out, cached int) (microUSD int64, ok bool) {
	rate, ok := r.rate(provider, model)
	if !ok {
		return 0, false
	}
	cachedRate := rate.Cached
	if cachedRate == 0 {
		cachedRate = rate.Input
	}
	cached = min(max(cached, 0), in)
	usd := float64(in-cached)*rate.Input + float64(cached)*cachedRate + float64(out)*rate.Output // per million tokens
	return int64(math.Round(usd)), true                                                          // USD/1e6 tokens × tokens = micro-USD
}

// rate finds a model's rate: by provider/model, by model, else by the
// longest key the model's name starts with followed by '-' (providers
// answer with dated names: gpt-4o-mini-2024-07-18 for gpt-4o-mini).
func (r Rates) rate(provider, model string) (Rate, bool) {
	if rate, ok := r[provider+"/"+model]; ok {
		return rate, true
	}
	if rate, ok := r[model]; ok {
		return rate, true
	}
	best, found := "", false
	for k := range r {
		if len(k) > len(best) && (strings.HasPrefix(model, k+"-") || strings.HasPrefix(provider+"/"+model, k+"-")) {
			best, found = k, true
		}
	}
	return r[best], found
}
