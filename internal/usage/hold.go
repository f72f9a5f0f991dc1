package usage

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// hold is one call's reservation.
type hold struct {
	b        *Budgets
	id       string // cluster mode: its record among the cluster's holds
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

// Warning flags of a budget count, each said once a period.
const (
	warnedPercent = 1 << iota // passed warn_percent
	warnedSpent               // spent (warn, route_down)
)

// Reserve implements beamclaw.Budgets.
func (b *Budgets) Reserve(ctx context.Context, s Spend) (beamclaw.Hold, error) {
	now := b.clock.Now().UTC()
	h := &hold{b: b, keys: b.keys(s, now)}
	if len(h.keys) == 0 {
		return h, nil
	}
	out := s.Out
	if out <= 0 {
		out = beamclaw.DefaultAnswerCap
	}
	micro, priced := b.rates.Price(s.Provider, s.Model, s.In, out, 0)
	h.est = amount{int64(s.In + out), micro}
	reserve := b.reserveLocked
	if b.shared != nil {
		reserve = b.reserveShared
	}
	warnings, err := reserve(h, s, priced, now)
	if err != nil {
		return nil, err
	}
	h.warnings = warnings
	if b.warn != nil { // after the lock: a slow listener stalls no reservation
		for _, w := range warnings {
			b.warn(ctx, w, slog.String("session_id", s.Session), slog.String("agent", s.Agent))
		}
	}
	return h, nil
}

// reserveLocked checks every budget of h and reserves its estimate
// against all of them, or none (a single node: the reservations are this
// process's); it returns what the user should hear.
func (b *Budgets) reserveLocked(h *hold, s Spend, priced bool, now time.Time) ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pruneLocked(now)
	v, err := b.decideLocked(h, s, priced, now, func(k holdKey) amount { return b.spent[k].add(b.reserved[k]) })
	if err != nil {
		return nil, err
	}
	for _, k := range h.keys {
		b.reserved[k] = b.reserved[k].add(h.est)
	}
	b.markLocked(v)
	h.model = v.model
	return v.warnings, nil
}

// verdict is what a reservation decided: the warnings to say (each with
// the flag it sets once said) and the model to route down to.
type verdict struct {
	warnings []string
	flags    []warnFlag
	model    string
}

type warnFlag struct {
	k    holdKey
	flag uint8
}

// decideLocked checks every budget of h against what its count holds
// (current: spent and reserved) plus the call's estimate. It changes
// nothing, so it may run again (a cluster's transaction). The caller
// holds b.mu.
func (b *Budgets) decideLocked(h *hold, s Spend, priced bool, now time.Time, current func(holdKey) amount) (verdict, error) {
	var v verdict
	say := func(k holdKey, flag uint8, msg string) {
		if f := (warnFlag{k, flag}); b.warned[k]&flag == 0 && !slices.Contains(v.flags, f) {
			v.flags = append(v.flags, f)
			v.warnings = append(v.warnings, msg)
		}
	}
	for _, k := range h.keys {
		bg := b.list[k.budget]
		if bg.MicroUSD > 0 && !priced {
			return verdict{}, budgetErr(fmt.Sprintf("%s has a money limit and model %s/%s has no rate in core.costs.rates, so the call is refused", bg.name(k.id), s.Provider, s.Model), bg, now)
		}
		after := current(k).add(h.est)
		if over(bg, after) {
			switch bg.Action {
			case ActionBlock:
				return verdict{}, budgetErr(spentMsg(bg, k.id, now), bg, now)
			case ActionRouteDown:
				if bg.RouteDownModel != "" && s.Model != bg.RouteDownModel {
					v.model = bg.RouteDownModel
				}
				say(k, warnedSpent, spentMsg(bg, k.id, now)+"; calls go to "+bg.RouteDownModel)
			default:
				say(k, warnedSpent, spentMsg(bg, k.id, now))
			}
			continue
		}
		if pct := percent(bg, after); bg.WarnPercent > 0 && pct >= bg.WarnPercent {
			say(k, warnedPercent, fmt.Sprintf("%s is %d%% used", bg.name(k.id), pct))
		}
	}
	return v, nil
}

// markLocked remembers the warnings of v as said. The caller holds b.mu.
func (b *Budgets) markLocked(v verdict) {
	for _, f := range v.flags {
		b.warned[f.k] |= f.flag
	}
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
	micro, priced := h.b.rates.Price(provider, model, u.PromptTokens, u.CompletionTokens, u.CachedTokens)
	if !priced {
		micro = h.est.micro // a model without a rate (a fallback's): charged as estimated
	}
	used := amount{int64(u.PromptTokens + u.CompletionTokens), micro}
	h.b.mu.Lock()
	for _, k := range h.keys {
		if h.b.shared == nil {
			h.b.unreserveLocked(k, h.est)
		}
		h.b.spent[k] = h.b.spent[k].add(used)
	}
	h.b.mu.Unlock()
	if h.b.shared != nil {
		h.b.finishShared(h, used)
	}
}

// Release implements beamclaw.Hold: the call failed; nothing was used.
func (h *hold) Release() {
	if h.done || len(h.keys) == 0 {
		return
	}
	h.done = true
	if h.b.shared != nil {
		h.b.finishShared(h, amount{})
		return
	}
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	for _, k := range h.keys {
		h.b.unreserveLocked(k, h.est)
	}
}

// unreserveLocked takes est off k's reservations, forgetting a count that
// is back to nothing. The caller holds b.mu.
func (b *Budgets) unreserveLocked(k holdKey, est amount) {
	if r := b.reserved[k].sub(est); r == (amount{}) {
		delete(b.reserved, k)
	} else {
		b.reserved[k] = r
	}
}
