package usage

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// hold is one call's reservation.
type hold struct {
	b        *Budgets
	keys     []holdKey
	est      amount
	model    string
	warnings []string
	done     bool
}

// BudgetError refuses a call: a budget with action block is spent (or a
// money budget cannot price the model). RetryIn is the time to its reset.
type BudgetError struct {
	Msg   string
	Reset time.Duration // 0: the budget never resets (period total)
}

func (e *BudgetError) Error() string { return e.Msg }

// RetryIn is when the budget resets (beamclaw.RetryAfterOf).
func (e *BudgetError) RetryIn() time.Duration { return e.Reset }

// Reserve implements beamclaw.Budgets.
func (b *Budgets) Reserve(ctx context.Context, s Spend) (beamclaw.Hold, error) {
	now := b.clock.Now().UTC()
	h := &hold{b: b, keys: b.keys(s, now)}
	if len(h.keys) == 0 {
		return h, nil
	}
	out := s.Out
	if out <= 0 {
		out = DefaultOutputCap
	}
	micro, priced := b.rates.Price(s.Provider, s.Model, s.In, out, 0)
	h.est = amount{int64(s.In + out), micro}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pruneLocked(now)
	var warnings []string
	for _, k := range h.keys {
		bg := b.list[k.budget]
		if bg.MicroUSD > 0 && !priced {
			return nil, budgetErr(fmt.Sprintf("%s has a money limit and model %s/%s has no rate in core.costs.rates, so the call is refused", bg.name(k.id), s.Provider, s.Model), bg, now)
		}
		after := b.spent[k].add(b.reserved[k]).add(h.est)
		if over(bg, after) {
			switch bg.Action {
			case ActionBlock:
				return nil, budgetErr(spentMsg(bg, k.id, now), bg, now)
			case ActionRouteDown:
				if bg.RouteDownModel != "" && s.Model != bg.RouteDownModel {
					h.model = bg.RouteDownModel
				}
			}
			if !b.warned[k] || bg.Action == ActionWarn {
				warnings = append(warnings, spentMsg(bg, k.id, now))
			}
			b.warned[k] = true
			continue
		}
		if pct := percent(bg, after); bg.WarnPercent > 0 && pct >= bg.WarnPercent && !b.warned[k] {
			b.warned[k] = true
			warnings = append(warnings, fmt.Sprintf("%s is %d%% used", bg.name(k.id), pct))
		}
	}
	for _, k := range h.keys {
		b.reserved[k] = b.reserved[k].add(h.est)
	}
	h.warnings = warnings
	if b.warn != nil {
		for _, w := range warnings {
			b.warn(ctx, w, slog.String("session_id", s.Session), slog.String("agent", s.Agent))
		}
	}
	return h, nil
}

func over(bg Budget, a amount) bool {
	return (bg.Tokens > 0 && a.tokens > bg.Tokens) || (bg.MicroUSD > 0 && a.micro > bg.MicroUSD)
}

func percent(bg Budget, a amount) int {
	p := 0
	if bg.Tokens > 0 {
		p = int(a.tokens * 100 / bg.Tokens)
	}
	if bg.MicroUSD > 0 {
		p = max(p, int(a.micro*100/bg.MicroUSD))
	}
	return p
}

func spentMsg(bg Budget, id string, now time.Time) string {
	limit := fmt.Sprintf("%d tokens", bg.Tokens)
	if bg.MicroUSD > 0 {
		limit = fmt.Sprintf("$%.2f", float64(bg.MicroUSD)/1e6)
		if bg.Tokens > 0 {
			limit = fmt.Sprintf("%d tokens or $%.2f", bg.Tokens, float64(bg.MicroUSD)/1e6)
		}
	}
	msg := fmt.Sprintf("%s (%s) is spent", bg.name(id), limit)
	if r := resetAt(bg.Period, now); !r.IsZero() {
		msg += "; it resets at " + r.Format("2006-01-02 15:04") + " UTC"
	}
	return msg
}

func budgetErr(msg string, bg Budget, now time.Time) error {
	var reset time.Duration
	if r := resetAt(bg.Period, now); !r.IsZero() {
		reset = r.Sub(now)
	}
	return beamclaw.E("usage.Reserve", beamclaw.KindBudget, msg, &BudgetError{Msg: msg, Reset: reset})
}

// Model implements beamclaw.Hold.
func (h *hold) Model() string { return h.model }

// Warnings implements beamclaw.Hold.
func (h *hold) Warnings() []string { return h.warnings }

// Settle implements beamclaw.Hold: the reservation becomes what the call
// really used.
func (h *hold) Settle(u beamclaw.Usage, provider, model string) {
	if h.done || len(h.keys) == 0 {
		return
	}
	h.done = true
	micro, _ := h.b.rates.Price(provider, model, u.PromptTokens, u.CompletionTokens, u.CachedTokens)
	used := amount{int64(u.PromptTokens + u.CompletionTokens), micro}
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	for _, k := range h.keys {
		h.b.reserved[k] = h.b.reserved[k].sub(h.est)
		h.b.spent[k] = h.b.spent[k].add(used)
	}
}

// Release implements beamclaw.Hold: the call failed; nothing was used.
func (h *hold) Release() {
	if h.done || len(h.keys) == 0 {
		return
	}
	h.done = true
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	for _, k := range h.keys {
		h.b.reserved[k] = h.b.reserved[k].sub(h.est)
	}
}
