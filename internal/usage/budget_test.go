package usage

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/store/replicatest"
)

func openLedger(t *testing.T, rates Rates) (*Ledger, *store.DB) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "beamclaw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	l, err := New(db, rates, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l, db
}

// 64 concurrent calls against a global budget of ~10 calls: what they
// use never passes the budget, and the refused ones are KindBudget naming
// the budget and its reset.
func TestBudgetsConcurrencyCannotOverspend(t *testing.T) {
	l, _ := openLedger(t, nil)
	clk := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	b, err := NewBudgets(l, []Budget{{Scope: ScopeGlobal, Period: PeriodDay, Tokens: 10_000, Action: ActionBlock}}, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	var used, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			h, err := b.Reserve(context.Background(), Spend{Session: "s", Agent: "a", Provider: "p", Model: "m", In: 500, Out: 500})
			if err != nil {
				var be *BudgetError
				if beamclaw.KindOf(err) != beamclaw.KindBudget || !errors.As(err, &be) || be.RetryIn() != 14*time.Hour {
					t.Errorf("call %d refused with %v", i, err)
				}
				refused.Add(1)
				return
			}
			used.Add(1000)
			h.Settle(beamclaw.Usage{PromptTokens: 500, CompletionTokens: 500}, "p", "m")
		})
	}
	wg.Wait()
	if used.Load() > 10_000 || used.Load() < 9_000 || refused.Load() != 64-used.Load()/1000 {
		t.Errorf("used %d tokens of 10,000 with %d refused", used.Load(), refused.Load())
	}
	clk.Advance(14 * time.Hour) // the next UTC day
	if _, err := b.Reserve(context.Background(), Spend{Agent: "a", Provider: "p", Model: "m", In: 500, Out: 500}); err != nil {
		t.Errorf("the budget did not reset at midnight UTC: %v", err)
	}
}

// What was spent survives a restart (it is read from the ledger); a money
// budget refuses a model it cannot price; route_down names the cheaper
// model; background budgets count heartbeats, jobs and maintenance only;
// a released reservation frees its estimate.
func TestBudgetsActionsAndRestart(t *testing.T) {
	l, _ := openLedger(t, Rates{"big": {Input: 10, Output: 10}, "small": {Input: 1, Output: 1}})
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	clk := clock.NewFake(now)
	ana := Attribution{Session: "s1", User: "tg:1", Agent: "default", Channel: beamclaw.ChannelTelegram, Origin: OriginInteractive}
	if err := l.Record(context.Background(), l.Entries(ana, []beamclaw.LLMCall{{At: now, Provider: "p", Model: "big",
		Usage: beamclaw.Usage{PromptTokens: 90_000, CompletionTokens: 10_000}}})); err != nil {
		t.Fatal(err)
	}
	list := []Budget{
		{Scope: ScopeUser, Period: PeriodMonth, MicroUSD: 1_500_000, Action: ActionRouteDown, RouteDownModel: "small"},
		{Scope: ScopeBackground, Period: PeriodDay, Tokens: 1_000, Action: ActionBlock},
	}
	var warned []string
	b, err := NewBudgets(l, list, clk, func(_ context.Context, msg string, _ ...slog.Attr) { warned = append(warned, msg) })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// tg:1 spent $1.00 of $1.50; a call estimated at $0.51 goes to "small".
	h, err := b.Reserve(ctx, Spend{User: "tg:1", Agent: "default", Origin: OriginInteractive, Provider: "p", Model: "big", In: 46_904, Out: 4096})
	if err != nil || h.Model() != "small" {
		t.Fatalf("route_down: %v %v", h, err)
	}
	h.Release()
	if len(warned) == 0 {
		t.Error("no warning when a route_down budget is spent")
	}
	if _, err := b.Reserve(ctx, Spend{User: "tg:1", Agent: "default", Origin: OriginInteractive, Provider: "p", Model: "unpriced", In: 1, Out: 1}); beamclaw.KindOf(err) != beamclaw.KindBudget {
		t.Errorf("a model without a rate under a money budget: %v", err)
	}
	if _, err := b.Reserve(ctx, Spend{User: "tg:2", Agent: "default", Origin: OriginInteractive, Provider: "p", Model: "small", In: 5000, Out: 100}); err != nil {
		t.Errorf("an interactive call counted against the background budget: %v", err)
	}
	if _, err := b.Reserve(ctx, Spend{User: "tg:2", Agent: "default", Origin: OriginHeartbeat, Provider: "p", Model: "small", In: 5000, Out: 100}); beamclaw.KindOf(err) != beamclaw.KindBudget {
		t.Errorf("a heartbeat past the background budget: %v", err)
	}
}

// BenchmarkReserveSettle is what budgets add to a model call: one
// reservation against three budgets and its settlement (the ledger entry
// rides on the turn's own commit), alone (in memory) and through one
// node of three (R3: two writes of the cluster's counts).
// go test -run '^$' -bench ReserveSettle -benchmem ./internal/usage/
func BenchmarkReserveSettle(b *testing.B) {
	for _, nodes := range []int{0, 3} {
		name := "alone"
		if nodes > 0 {
			name = "R3"
		}
		b.Run(name, func(b *testing.B) {
			var db *store.DB
			node := ""
			if nodes == 0 {
				var err error
				if db, err = store.Open(filepath.Join(b.TempDir(), "beamclaw.db"), store.Options{}); err != nil {
					b.Fatal(err)
				}
				defer db.Close()
			} else {
				ns, dbs := replicatest.Stores(b, nodes, nodes)
				db, node = dbs[0], ns[0].ID()
			}
			l, err := New(db, Rates{"m": {Input: 1, Output: 2}}, nil)
			if err != nil {
				b.Fatal(err)
			}
			if node != "" {
				l.OfNode(node)
			}
			benchReserveSettle(b, l)
		})
	}
}

func benchReserveSettle(b *testing.B, l *Ledger) {
	bs, err := NewBudgets(l, []Budget{
		{Scope: ScopeGlobal, Period: PeriodDay, Tokens: 1 << 62, Action: ActionBlock},
		{Scope: ScopeUser, Period: PeriodMonth, MicroUSD: 1 << 62, Action: ActionWarn},
		{Scope: ScopeSession, Period: PeriodTotal, Tokens: 1 << 62, Action: ActionBlock},
	}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s := Spend{Session: "s1", User: "tg:1", Agent: "default", Origin: OriginInteractive, Provider: "p", Model: "m", In: 3000, Out: 4096}
	b.ReportAllocs()
	for b.Loop() {
		h, err := bs.Reserve(ctx, s)
		if err != nil {
			b.Fatal(err)
		}
		h.Settle(beamclaw.Usage{PromptTokens: 3000, CompletionTokens: 40}, "p", "m")
	}
}

// A budget past its warn_percent says so once a period, to the run (its
// user) and to the warning callback.
func TestBudgetWarnsOnce(t *testing.T) {
	l, _ := openLedger(t, nil)
	var events []string
	b, err := NewBudgets(l, []Budget{{Scope: ScopeAgent, Period: PeriodDay, Tokens: 10_000, Action: ActionBlock, WarnPercent: 50}},
		clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)), func(_ context.Context, msg string, _ ...slog.Attr) { events = append(events, msg) })
	if err != nil {
		t.Fatal(err)
	}
	s := Spend{Agent: "default", Provider: "p", Model: "m", In: 3000, Out: 1000}
	first, _ := b.Reserve(context.Background(), s)
	first.Settle(beamclaw.Usage{PromptTokens: 3000, CompletionTokens: 1000}, "p", "m")
	second, _ := b.Reserve(context.Background(), s)
	third, _ := b.Reserve(context.Background(), Spend{Agent: "default", Provider: "p", Model: "m", In: 10, Out: 10})
	if len(first.Warnings()) != 0 || len(second.Warnings()) != 1 || !strings.Contains(second.Warnings()[0], "daily budget of agent default is 80% used") ||
		len(third.Warnings()) != 0 || len(events) != 1 {
		t.Errorf("warnings %v %v %v, events %v", first.Warnings(), second.Warnings(), third.Warnings(), events)
	}
}

// A stateless request is a session of one call: session budgets do not
// apply to it; a stored session's do.
func TestSessionBudgetsSkipStatelessRequests(t *testing.T) {
	l, _ := openLedger(t, nil)
	b, err := NewBudgets(l, []Budget{{Scope: ScopeSession, Period: PeriodTotal, Tokens: 10, Action: ActionBlock}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Reserve(context.Background(), Spend{Session: "ephemeral-run-1", Agent: "a", In: 100, Out: 100}); err != nil {
		t.Errorf("a stateless request under a session budget: %v", err)
	}
	if _, err := b.Reserve(context.Background(), Spend{Session: "session-1", Agent: "a", In: 100, Out: 100}); beamclaw.KindOf(err) != beamclaw.KindBudget {
		t.Errorf("a stored session past its budget: %v", err)
	}
}

// A monthly budget resets on the 1st at midnight UTC, running and when
// read back from the ledger at start (last month's spending is not this
// month's); a total budget never resets.
func TestBudgetPeriodsResetAtUTCMonth(t *testing.T) {
	l, _ := openLedger(t, nil)
	clk := clock.NewFake(time.Date(2026, 11, 30, 23, 30, 0, 0, time.UTC))
	a := Attribution{Session: "s1", User: "tg:1", Agent: "default", Origin: OriginInteractive}
	if err := l.Record(context.Background(), l.Entries(a, []beamclaw.LLMCall{{At: clk.Now(), Provider: "p", Model: "m",
		Usage: beamclaw.Usage{PromptTokens: 900, CompletionTokens: 100}}})); err != nil {
		t.Fatal(err)
	}
	month := []Budget{{Scope: ScopeUser, Period: PeriodMonth, Tokens: 1000, Action: ActionBlock}}
	s := Spend{User: "tg:1", Agent: "default", Origin: OriginInteractive, Provider: "p", Model: "m", In: 10, Out: 10}
	started := func(list []Budget) error { // a start now, then one call
		b, err := NewBudgets(l, list, clk, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Reserve(context.Background(), s)
		return err
	}
	running, err := NewBudgets(l, month, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(30*time.Minute - time.Second) // 23:59:59 UTC
	if _, err := running.Reserve(context.Background(), s); beamclaw.KindOf(err) != beamclaw.KindBudget {
		t.Fatalf("November's spent budget on the 30th at 23:59:59 UTC: %v", err)
	}
	if err := started(month); beamclaw.KindOf(err) != beamclaw.KindBudget {
		t.Fatalf("November's spent budget read back at 23:59:59 UTC: %v", err)
	}
	clk.Advance(time.Second) // December 1st, 00:00 UTC
	if _, err := running.Reserve(context.Background(), s); err != nil {
		t.Errorf("the monthly budget did not reset on December 1st UTC: %v", err)
	}
	if err := started(month); err != nil {
		t.Errorf("November's spending was read back as December's: %v", err)
	}
	if err := started([]Budget{{Scope: ScopeUser, Period: PeriodTotal, Tokens: 1000, Action: ActionBlock}}); beamclaw.KindOf(err) != beamclaw.KindBudget {
		t.Errorf("a total budget reset with the month: %v", err)
	}
}
