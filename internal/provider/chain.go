package provider

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// Cool-downs of a provider after a failure, before a paid call goes to it
// again.
const (
	DefaultRateLimitCooldown = 20 * time.Second // a 429 without Retry-After
	MaxRateLimitCooldown     = 10 * time.Minute // a longer Retry-After is capped
	UnavailableCooldown      = 10 * time.Second // 5xx, a dropped connection, no answer in time
	AuthCooldown             = 10 * time.Minute // refused credentials or billing (401, 402, 403)
	// maxSticky bounds the conversations a chain remembers the provider of.
	maxSticky = 10_000
)

// Emitter takes a chain's events (the daemon's bus).
type Emitter interface {
	Emit(ctx context.Context, ev beamclaw.Event)
}

// Prober is a provider that can tell, without a paid call, whether it
// answers again (openai.Client: GET /models).
type Prober interface {
	Probe(ctx context.Context) error
}

// ChainOptions configure a Chain; every field is optional.
type ChainOptions struct {
	Logger  *slog.Logger
	Emitter Emitter // an llm_attempt event per failed attempt
	Clock   clock.Clock
	// Health is shared by the chains over the same clients (nil: the
	// chain's own).
	Health *Health
	// Window is a model's context window in tokens: a call whose context
	// overflows goes to the next provider whose model's window is larger
	// (nil: an overflow is not retried).
	Window func(model string) int
}

// Chain is a Provider over an ordered list of providers (the default one,
// then core.fallback_providers) that knows why a call failed. Before any
// text reached the caller it moves on to the next provider when one
// rate limits (that provider then cools down for its Retry-After),
// refuses the credentials or the bill (it cools down for AuthCooldown), or
// is unavailable or slow (UnavailableCooldown, or the Retry-After an
// overloaded provider gave); it does not retry an
// invalid request, an overflowing context or a content-policy refusal. A
// provider cooling down gets no paid call. A conversation stays with the
// provider that last answered it (its prompt cache stays warm). The
// final error names every attempt. ChatResponse.Provider names the
// provider that answered.
type Chain struct {
	providers []beamclaw.Provider
	log       *slog.Logger
	emit      Emitter
	clock     clock.Clock
	window    func(model string) int

	health *Health

	mu     sync.Mutex
	sticky map[string]int // conversation -> index of the provider that answered it last
}

// Health is what chains know of their entries' failures (an entry is a
// provider client, one per key): which cools down until when, and which
// must pass a probe before its next paid call. Chains over the same
// clients share it, so a 429 seen through one chain spares the provider
// in every other.
type Health struct {
	mu     sync.Mutex
	cooled map[beamclaw.Provider]time.Time
	probe  map[beamclaw.Provider]bool
}

// NewHealth returns an empty Health.
func NewHealth() *Health {
	return &Health{cooled: map[beamclaw.Provider]time.Time{}, probe: map[beamclaw.Provider]bool{}}
}

var _ beamclaw.Provider = (*Chain)(nil)

// NewChain returns a Chain; it needs at least one provider.
func NewChain(o ChainOptions, providers ...beamclaw.Provider) (*Chain, error) {
	if len(providers) == 0 {
		return nil, beamclaw.E("provider.NewChain", beamclaw.KindInvalid, "no providers configured", nil)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Chain{providers: providers, log: o.Logger, emit: o.Emitter, clock: clock.Or(o.Clock), window: o.Window,
		health: cmp.Or(o.Health, NewHealth()), sticky: map[string]int{}}, nil
}

// Name is the first provider's name.
func (c *Chain) Name() string { return c.providers[0].Name() }

// Providers returns the providers in order.
func (c *Chain) Providers() []beamclaw.Provider {
	return append([]beamclaw.Provider(nil), c.providers...)
}

// order is the providers to ask for conv, by index: the one that answered
// it last first, then the others in their order.
func (c *Chain) order(conv string) []int {
	first := 0
	if conv != "" {
		c.mu.Lock()
		first = c.sticky[conv]
		c.mu.Unlock()
	}
	out := []int{first}
	for i := range c.providers {
		if i != first {
			out = append(out, i)
		}
	}
	return out
}

// Chat asks the providers in turn, as the Chain's doc says. req.Model
// goes only to the first provider; the others use their own configured
// model, since model names differ between providers.
func (c *Chain) Chat(ctx context.Context, req beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
	emitted := false
	tracked := func(s string) {
		emitted = true
		if onText != nil {
			onText(s)
		}
	}
	var (
		resp     beamclaw.ChatResponse
		err      error
		attempts []string
		soonest  time.Duration // the shortest wait of a provider cooling down
		overflow int           // the window a call overflowed: only a larger one may take it
	)
	order := c.order(req.Conversation)
	for n, i := range order {
		p, label := c.providers[i], c.label(i)
		if wait := c.coolingFor(i); wait > 0 {
			attempts = append(attempts, fmt.Sprintf("%s: cooling down for %s", label, wait.Round(time.Second)))
			if soonest == 0 || wait < soonest {
				soonest = wait
			}
			continue
		}
		if perr := c.probed(ctx, i); perr != nil {
			attempts = append(attempts, label+": its health probe failed: "+beamclaw.UserMessage(perr))
			continue
		}
		r := req
		if p.Name() != c.providers[0].Name() {
			r.Model = "" // another provider: its own model
		}
		if overflow > 0 && c.windowOf(i, r.Model) <= overflow {
			continue // no larger window than the one that overflowed
		}
		cctx := WithoutRetries(ctx) // the chain goes on: no retry in place
		if !c.usableAfter(order[n+1:]) {
			cctx = withRetryReport(ctx, func(rerr error) { // its retries in place are attempts too
				attempts = append(attempts, label+": "+beamclaw.UserMessage(rerr))
				c.failed(ctx, label, rerr)
			})
		}
		if resp, err = p.Chat(cctx, r, tracked); err == nil {
			c.answered(req.Conversation, i)
			return resp, nil
		}
		attempts = append(attempts, label+": "+beamclaw.UserMessage(err))
		c.failed(ctx, label, err)
		if beamclaw.KindOf(err) == beamclaw.KindTooLarge && !emitted && c.window != nil {
			overflow = max(overflow, c.windowOf(i, r.Model)) // a model with a larger window may take it
			continue
		}
		if emitted || ctx.Err() != nil || !c.cool(i, err) {
			break
		}
	}
	if err == nil { // every provider was cooling down: no call was made
		return resp, beamclaw.E("provider.Chain", beamclaw.KindRateLimited,
			"every model provider is cooling down after failures ("+strings.Join(attempts, "; ")+")", retryIn(soonest))
	}
	return resp, beamclaw.E("provider.Chain", beamclaw.KindOf(err), chainMessage(err, attempts), err)
}

// chainMessage says what failed: the last error's words, with every
// attempt when there was more than one.
func chainMessage(err error, attempts []string) string {
	if len(attempts) <= 1 {
		return beamclaw.UserMessage(err)
	}
	return beamclaw.UserMessage(err) + " (tried " + strings.Join(attempts, "; ") + ")"
}

// retryIn is an error whose RetryIn is d (beamclaw.RetryAfterOf).
type retryIn time.Duration

func (r retryIn) Error() string          { return "retry in " + time.Duration(r).String() }
func (r retryIn) RetryIn() time.Duration { return time.Duration(r) }

// cool puts a provider that failed with err out of use for a while, and
// reports whether the next provider may be tried.
func (c *Chain) cool(i int, err error) bool {
	var d time.Duration
	switch beamclaw.KindOf(err) {
	case beamclaw.KindRateLimited:
		d = beamclaw.RetryAfterOf(err)
		if d <= 0 {
			d = DefaultRateLimitCooldown
		}
		d = min(d, MaxRateLimitCooldown)
	case beamclaw.KindUnauthorized:
		d = AuthCooldown
	case beamclaw.KindUnavailable, beamclaw.KindTimeout:
		d = UnavailableCooldown
		if ra := beamclaw.RetryAfterOf(err); ra > 0 { // an overloaded provider (503, Anthropic's 529) said when
			d = min(ra, MaxRateLimitCooldown)
		}
	default:
		return false // invalid, too large for the context, refused by policy: no retry helps
	}
	if len(c.providers) == 1 {
		return false // nothing else to try; a lone provider is never cooled out of use
	}
	c.coolFor(i, d)
	return true
}

// probed checks entry i with a health probe when it cooled down before
// (Prober; no paid call goes to it to find out): an error cools it down
// again. Entries never cooled, and providers that cannot be probed, pass.
func (c *Chain) probed(ctx context.Context, i int) error {
	h, e := c.health, c.providers[i]
	h.mu.Lock()
	need := h.probe[e]
	h.mu.Unlock()
	p, ok := c.providers[i].(Prober)
	if !need || !ok {
		return nil
	}
	if err := p.Probe(ctx); err != nil && ctx.Err() == nil { // the caller's cancel says nothing of the provider
		c.failed(ctx, c.label(i)+" (probe)", err)
		if !c.cool(i, err) {
			c.coolFor(i, UnavailableCooldown)
		}
		return err
	} else if err != nil {
		return err
	}
	h.mu.Lock()
	if _, cooling := h.cooled[e]; !cooling { // not cooled again meanwhile by another call
		delete(h.probe, e)
	}
	h.mu.Unlock()
	return nil
}

// coolFor cools entry i down for d.
func (c *Chain) coolFor(i int, d time.Duration) {
	h, e := c.health, c.providers[i]
	h.mu.Lock()
	h.cooled[e] = c.clock.Now().Add(d)
	h.probe[e] = true
	h.mu.Unlock()
}

// label names entry i in attempts and events: the provider, and which of
// its keys when it has several ("openai (key 2)").
func (c *Chain) label(i int) string {
	name, n, k := c.providers[i].Name(), 0, 0
	for j, p := range c.providers {
		if p.Name() == name {
			n++
			if j <= i {
				k++
			}
		}
	}
	if n == 1 {
		return name
	}
	return fmt.Sprintf("%s (key %d)", name, k)
}

// windowOf is the context window of entry i for a call asking model ("":
// the provider's own model).
func (c *Chain) windowOf(i int, model string) int {
	if model == "" {
		if m, ok := c.providers[i].(interface{ Model() string }); ok {
			model = m.Model()
		}
	}
	return c.window(model)
}

// usableAfter reports whether any entry of rest is not cooling down: the
// chain has somewhere to go after the one it asks now.
func (c *Chain) usableAfter(rest []int) bool {
	for _, j := range rest {
		if c.coolingFor(j) == 0 {
			return true
		}
	}
	return false
}

// coolingFor is how long entry i still cools down (0: usable).
func (c *Chain) coolingFor(i int) time.Duration {
	h, e := c.health, c.providers[i]
	h.mu.Lock()
	defer h.mu.Unlock()
	until, ok := h.cooled[e]
	if !ok {
		return 0
	}
	if left := until.Sub(c.clock.Now()); left > 0 {
		return left
	}
	delete(h.cooled, e)
	return 0
}

// answered remembers which provider answered the conversation.
func (c *Chain) answered(conv string, i int) {
	if conv == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.sticky[conv]; !ok && len(c.sticky) >= maxSticky {
		clear(c.sticky)
	}
	if i == 0 {
		delete(c.sticky, conv)
		return
	}
	c.sticky[conv] = i
}

// failed logs and emits one failed attempt.
func (c *Chain) failed(ctx context.Context, name string, err error) {
	kind := beamclaw.KindOf(err).String()
	c.log.LogAttrs(ctx, slog.LevelWarn, "provider attempt failed", slog.String("provider", name), slog.String("kind", kind))
	if c.emit != nil {
		c.emit.Emit(ctx, beamclaw.Event{Name: beamclaw.EventLLMAttempt,
			Attrs: []slog.Attr{slog.String("provider", name), slog.String("kind", kind)}})
	}
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
