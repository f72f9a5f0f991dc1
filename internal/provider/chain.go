package provider

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Chain is a Provider over an ordered list of providers (the default one,
// then core.fallback_providers): when one fails with a rate limit,
// unavailability or a timeout before any text reached the caller, the
// next one is asked. ChatResponse.Provider names the one that answered.
type Chain struct {
	providers []beamclaw.Provider
	log       *slog.Logger
}

var _ beamclaw.Provider = (*Chain)(nil)

// NewChain returns a Chain; logger may be nil. It needs at least one
// provider.
func NewChain(logger *slog.Logger, providers ...beamclaw.Provider) (*Chain, error) {
	if len(providers) == 0 {
		return nil, beamclaw.E("provider.NewChain", beamclaw.KindInvalid, "no providers configured", nil)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Chain{providers: providers, log: logger}, nil
}

// Name is the first provider's name.
func (c *Chain) Name() string { return c.providers[0].Name() }

// Providers returns the providers in order.
func (c *Chain) Providers() []beamclaw.Provider {
	return append([]beamclaw.Provider(nil), c.providers...)
}

// Chat asks each provider in turn. req.Model goes only to the first
// provider; fallbacks use their own configured model, since model names
// differ between providers.
func (c *Chain) Chat(ctx context.Context, req beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
	emitted := false
	tracked := func(s string) {
		emitted = true
		if onText != nil {
			onText(s)
		}
	}
	var resp beamclaw.ChatResponse
	var err error
	for i, p := range c.providers {
		r := req
		if i > 0 {
			r.Model = ""
		}
		resp, err = p.Chat(ctx, r, tracked)
		if err == nil {
			return resp, nil
		}
		if emitted || ctx.Err() != nil || !fallsOver(err) || i == len(c.providers)-1 {
			break
		}
		c.log.LogAttrs(ctx, slog.LevelWarn, "provider fallback",
			slog.String("from", p.Name()), slog.String("to", c.providers[i+1].Name()),
			slog.String("kind", beamclaw.KindOf(err).String()))
	}
	return resp, fmt.Errorf("provider chain: %w", err)
}

// fallsOver reports whether an error lets the next provider try.
func fallsOver(err error) bool {
	switch beamclaw.KindOf(err) {
	case beamclaw.KindRateLimited, beamclaw.KindUnavailable, beamclaw.KindTimeout:
		return true
	}
	return false
}

// ChainOf is the names of the providers a chain asks, in order: first,
// then the fallbacks, each once. It is the one rule for the order: the
// daemon builds its chains by it and `start`/`doctor` check keys by it.
func ChainOf(first string, fallbacks []string) []string {
	chain := []string{first}
	for _, f := range fallbacks {
		if !slices.Contains(chain, f) {
			chain = append(chain, f)
		}
	}
	return chain
}
