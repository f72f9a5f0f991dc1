package usage

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// Budget scopes, periods and actions (core.budgets).
const (
	ScopeSession    = "session"
	ScopeUser       = "user"
	ScopeAgent      = "agent"
	ScopeGlobal     = "global"
	ScopeBackground = "background" // heartbeats, jobs and maintenance, together

	PeriodDay   = "day"
	PeriodMonth = "month"
	PeriodTotal = "total"

	ActionWarn      = "warn"
	ActionBlock     = "block"
	ActionRouteDown = "route_down"
)

// Budget is one limit on tokens and/or money over a period.
type Budget struct {
	Scope, Period  string
	Tokens         int64 // 0: no token limit
	MicroUSD       int64 // 0: no money limit
	Action         string
	RouteDownModel string
	WarnPercent    int
}

// Name says a budget for a user: "the daily budget of agent default".
func (b Budget) name(id string) string {
	per := map[string]string{PeriodDay: "daily ", PeriodMonth: "monthly ", PeriodTotal: ""}[b.Period]
	switch b.Scope {
	case ScopeGlobal:
		return "the " + per + "global budget"
	case ScopeBackground:
		return "the " + per + "budget of background work (heartbeats, jobs, maintenance)"
	}
	return "the " + per + "budget of " + b.Scope + " " + id
}

// amount is what a budget counts.
type amount struct{ tokens, micro int64 }

func (a amount) add(b amount) amount { return amount{a.tokens + b.tokens, a.micro + b.micro} }
func (a amount) sub(b amount) amount { return amount{a.tokens - b.tokens, a.micro - b.micro} }

// holdKey is one budget's count for one scope id and period.
type holdKey struct {
	budget int
	id     string
	period string
}

// Budgets enforce the configured budgets: a call's estimate is reserved
// against every budget that applies, under one lock (N concurrent calls
// can never overspend; in cluster mode in one transaction of the
// cluster's counts, shared.go), and settled with the real usage after
// the call.
// What was spent comes from the ledger at start, so budgets survive
// restarts; periods reset at the UTC day and month.
type Budgets struct {
	list  []Budget
	rates Rates
	clock clock.Clock
	warn  func(ctx context.Context, msg string, attrs ...slog.Attr)

	shared *shared // cluster mode: the counts are the cluster's (shared.go)

	mu       sync.Mutex
	day      string // the UTC day of the last reservation: past it, old periods go
	spent    map[holdKey]amount
	reserved map[holdKey]amount
	warned   map[holdKey]uint8 // warnedPercent, warnedSpent
}

var _ beamclaw.Budgets = (*Budgets)(nil)

// NewBudgets loads what the ledger holds of each budget's current period.
// warn reports a budget past its warn_percent or spent under action warn
// (nil: not reported). In cluster mode a node without budgets (an empty
// list) has them all the same, to sweep the cluster's holds (KeepHolds):
// those of its earlier lives, when it had budgets, count on the other
// nodes until it does.
func NewBudgets(l *Ledger, list []Budget, clk clock.Clock, warn func(ctx context.Context, msg string, attrs ...slog.Attr)) (*Budgets, error) {
	b := &Budgets{list: list, rates: l.rates, clock: clock.Or(clk), warn: warn,
		spent: map[holdKey]amount{}, reserved: map[holdKey]amount{}, warned: map[holdKey]uint8{}}
	var err error
	if l.node != "" {
		if b.shared, err = newShared(l.db, l.node); err != nil {
			return nil, err
		}
	}
	if len(list) == 0 { // nothing to count: a node of a cluster only sweeps
		return b, nil
	}
	now := b.clock.Now().UTC()
	since := now
	for _, bg := range list {
		if s := periodStart(bg.Period, now); s.Before(since) {
			since = s
		}
	}
	var last uint64
	err = l.scan(l.area.Peek, since, func(e Entry, seq uint64) bool { // a start does not wait for its cluster
		b.count(e, now)
		last = max(last, seq)
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("usage budgets: %w", err)
	}
	if b.shared != nil {
		b.follow(l, last)
	}
	return b, nil
}

// count adds e to what was spent in the current periods.
func (b *Budgets) count(e Entry, now time.Time) {
	s := Spend{Session: e.Session, User: e.User, Agent: e.Agent, Origin: e.Origin}
	for _, k := range b.keys(s, e.At) {
		if k.period == periodOf(b.list[k.budget].Period, now) {
			b.spent[k] = b.spent[k].add(amount{int64(e.In + e.Out), e.MicroUSD})
		}
	}
}

// followWindow is how far back the calls other nodes record are looked
// for: a call is recorded when its run ends, within a run's time.
const followWindow = time.Hour

// follow counts, in cluster mode, the calls the other nodes record as
// their entries reach this replica (this node's own are counted when
// their reservations settle): what a period's first reservation finds
// spent when the cluster's counts have none of it yet (shared.go).
func (b *Budgets) follow(l *Ledger, last uint64) {
	var mu sync.Mutex // one look at a time; last is the newest entry counted
	l.area.OnChange(func() {
		mu.Lock()
		defer mu.Unlock()
		now := b.clock.Now().UTC()
		seen := last // entries come in time order, not in the order written
		_ = l.scan(l.area.Peek, now.Add(-followWindow), func(e Entry, seq uint64) bool {
			if seq > seen {
				last = max(last, seq)
				if e.Node != l.node {
					b.mu.Lock()
					b.count(e, now)
					b.mu.Unlock()
				}
			}
			return true
		})
	})
}

// Spend is beamclaw.Spend (the budgets' view of a call).
type Spend = beamclaw.Spend

func periodStart(period string, now time.Time) time.Time {
	switch period {
	case PeriodDay:
		return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	case PeriodMonth:
		return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Time{}
}

func periodOf(period string, t time.Time) string {
	switch period {
	case PeriodDay:
		return t.UTC().Format(time.DateOnly)
	case PeriodMonth:
		return t.UTC().Format("2006-01")
	}
	return ""
}

// resetAt is when a period that holds now ends (zero for total).
func resetAt(period string, now time.Time) time.Time {
	switch period {
	case PeriodDay:
		return periodStart(period, now).AddDate(0, 0, 1)
	case PeriodMonth:
		return periodStart(period, now).AddDate(0, 1, 0)
	}
	return time.Time{}
}

// keys are the budget counts a call of s at t falls under.
func (b *Budgets) keys(s Spend, t time.Time) []holdKey {
	var out []holdKey
	for i, bg := range b.list {
		var id string
		switch bg.Scope {
		case ScopeSession:
			if strings.HasPrefix(s.Session, beamclaw.EphemeralPrefix) {
				continue // a stateless request is a session of one call: session budgets do not apply
			}
			id = s.Session
		case ScopeUser:
			id = s.User
		case ScopeAgent:
			id = s.Agent
		case ScopeBackground:
			if s.Origin != OriginHeartbeat && s.Origin != OriginJob && s.Origin != OriginMaintenance {
				continue
			}
		}
		if id == "" && bg.Scope != ScopeGlobal && bg.Scope != ScopeBackground {
			continue
		}
		out = append(out, holdKey{budget: i, id: id, period: periodOf(bg.Period, t)})
	}
	return out
}

// pruneLocked forgets the counts of periods that are over. The caller
// holds b.mu.
func (b *Budgets) pruneLocked(now time.Time) {
	if d := periodOf(PeriodDay, now); d != b.day {
		b.day = d
		for k := range b.spent {
			if k.period != periodOf(b.list[k.budget].Period, now) {
				delete(b.spent, k)
			}
		}
		for k := range b.warned {
			if k.period != periodOf(b.list[k.budget].Period, now) {
				delete(b.warned, k)
			}
		}
	}
}
