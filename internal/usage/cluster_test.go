package usage

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/store/replicatest"
)

// noon is the fake clocks' start: not the wall clock, whose day can end
// mid-test (a CI run across midnight UTC reserved against a new day's
// counts, where the held calls were not).
var noon = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// nodeBudgets are node's budgets (list) over db, its replica of the
// cluster's areas.
func nodeBudgets(t *testing.T, db *store.DB, node string, list []Budget, clk clock.Clock) *Budgets {
	t.Helper()
	l, err := New(db, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.OfNode(node)
	b, err := NewBudgets(l, list, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLedgerAndBudgetsAreTheClusters: in cluster mode the calls one node
// records are in every node's reports, and a budget on another node
// counts them: the global budget spent on the first node refuses on the
// second. A node's own calls are not counted twice.
func TestLedgerAndBudgetsAreTheClusters(t *testing.T) {
	nodes, dbs := replicatest.Stores(t, 3, 3)
	clk := clock.NewFake(noon)
	var ledgers []*Ledger
	for i, db := range dbs {
		l, err := New(db, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		l.OfNode(nodes[i].ID())
		ledgers = append(ledgers, l)
	}
	budget := []Budget{{Scope: ScopeGlobal, Period: PeriodDay, Tokens: 8_500, Action: ActionBlock}}
	b2, err := NewBudgets(ledgers[1], budget, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	spend := Spend{Session: "s", Agent: "a", Provider: "p", Model: "m", In: 500, Out: 500}
	h, err := b2.Reserve(context.Background(), spend) // n2's own call
	if err != nil {
		t.Fatal(err)
	}
	h.Settle(beamclaw.Usage{PromptTokens: 500, CompletionTokens: 500}, "p", "m")
	own := ledgers[1].Entries(Attribution{Session: "s", Agent: "a"}, []beamclaw.LLMCall{{At: clk.Now(), Provider: "p", Model: "m",
		Usage: beamclaw.Usage{PromptTokens: 500, CompletionTokens: 500}}})
	if err := ledgers[1].Record(context.Background(), own); err != nil {
		t.Fatal(err)
	}
	calls := ledgers[0].Entries(Attribution{Session: "s", Agent: "a"}, []beamclaw.LLMCall{{At: clk.Now(), Provider: "p", Model: "m",
		Usage: beamclaw.Usage{PromptTokens: 4000, CompletionTokens: 3000}}})
	if err := ledgers[0].Record(context.Background(), calls); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		rows, total, err := ledgers[2].Report("agent", time.Time{})
		if err == nil && len(rows) == 1 && total.In+total.Out == 8000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("n3's report: %+v %+v %v; want both nodes' 8,000 tokens", rows, total, err)
		}
	}
	// 8,000 spent across the cluster (n1's 7,000, n2's own 1,000 once):
	// a call of 1,000 more passes 8,500.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		h, err := b2.Reserve(context.Background(), spend)
		if err != nil && beamclaw.KindOf(err) == beamclaw.KindBudget {
			break
		}
		if err == nil {
			h.Release()
		}
		if time.Now().After(deadline) {
			t.Fatalf("n2's budget does not count n1's calls: %v", err)
		}
	}
	small := Spend{Session: "s", Agent: "a", Provider: "p", Model: "m", In: 200, Out: 200}
	if h, err := b2.Reserve(context.Background(), small); err != nil { // 8,000 + 400 fits 8,500: n2's own not twice
		t.Fatalf("n2's budget counts its own call twice: %v", err)
	} else {
		h.Release()
	}
	b2b, err := NewBudgets(ledgers[1], []Budget{{Scope: ScopeGlobal, Period: PeriodDay, Tokens: 9_100, Action: ActionBlock}}, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := b2b.Reserve(context.Background(), spend); err != nil { // 8,000 + 1,000 fits 9,100: n2's own not twice
		t.Fatalf("a budget read from the ledger counts a call twice: %v", err)
	} else {
		h.Release()
	}
}

// TestBudgetsHoldAcrossNodes: in cluster mode a reservation counts the
// calls in flight on every node, so calls spread over three nodes cannot
// pass a budget together; a node that stops answering gives its calls'
// estimates back (a late settle adds what it used), and so does a node's
// earlier life.
func TestBudgetsHoldAcrossNodes(t *testing.T) {
	nodes, dbs := replicatest.Stores(t, 3, 3)
	clk := clock.NewFake(noon)
	budget := []Budget{{Scope: ScopeGlobal, Period: PeriodDay, Tokens: 10_000, Action: ActionBlock}}
	open := func(i int) *Budgets { return nodeBudgets(t, dbs[i], nodes[i].ID(), budget, clk) }
	b := []*Budgets{open(0), open(1), open(2)}
	call := Spend{Session: "s", Agent: "a", Provider: "p", Model: "m", In: 500, Out: 500} // 1,000 reserved
	reserve := func(i int) (beamclaw.Hold, bool) {
		t.Helper()
		h, err := b[i].Reserve(context.Background(), call)
		if err != nil && beamclaw.KindOf(err) != beamclaw.KindBudget {
			t.Fatalf("n%d: %v", i+1, err)
		}
		return h, err == nil
	}
	// 30 calls at once, ten through each node: ten fit.
	var mu sync.Mutex
	var held []beamclaw.Hold
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			if h, ok := reserve(i % 3); ok {
				mu.Lock()
				held = append(held, h)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(held) != 10 {
		t.Fatalf("%d of 30 calls on three nodes reserved against a budget of ten", len(held))
	}
	for _, h := range held {
		h.Settle(beamclaw.Usage{PromptTokens: 60, CompletionTokens: 40}, "p", "m") // 1,000 used in all
	}
	byNode := make([][]beamclaw.Hold, 3) // 9,000 more fits, three per node
	for i := range 9 {
		h, ok := reserve(i % 3)
		if !ok {
			t.Fatalf("call %d of the nine that fit was refused", i+1)
		}
		byNode[i%3] = append(byNode[i%3], h)
	}
	if _, ok := reserve(0); ok {
		t.Fatal("a tenth call fit a budget that holds 1,000 used and 9,000 in flight")
	}

	if err := b[0].Sweep(map[string]bool{"n1": true, "n2": true}); err != nil { // n3 stopped answering
		t.Fatal(err)
	}
	var more []beamclaw.Hold
	for range 3 {
		h, ok := reserve(0)
		if !ok {
			t.Fatal("n3's calls in flight still count after it stopped answering")
		}
		more = append(more, h)
	}
	if _, ok := reserve(1); ok {
		t.Fatal("more than n3's three calls were given back")
	}
	byNode[2][0].Settle(beamclaw.Usage{PromptTokens: 100}, "p", "m") // n3 was only cut off: its call used 100
	for _, h := range more {
		h.Release()
	}
	got := 0 // 10,000 - 1,100 used - 6,000 in flight on n1 and n2
	for _, i := range []int{1, 0, 1} {
		if h, ok := reserve(i); ok {
			got++
			defer h.Release()
		}
	}
	if got != 2 {
		t.Fatalf("%d calls fit after n3's late settle; want 2 (its 100 tokens count)", got)
	}

	b[1] = open(1) // n2 restarts: its three calls in flight can never settle
	if err := b[1].Sweep(nil); err != nil {
		t.Fatal(err)
	}
	if h, ok := reserve(1); !ok {
		t.Fatal("n2's earlier life's calls still count after its restart")
	} else {
		h.Release()
	}
}

// TestKeepHoldsSweepsWhatAnswers: the daemon's sweep drops the calls in
// flight of a node missing from two answers in a row, every sweepEvery,
// and judges none gone from an answer that lacks its own node.
func TestKeepHoldsSweepsWhatAnswers(t *testing.T) {
	nodes, dbs := replicatest.Stores(t, 2, 1)
	clk := clock.NewFake(noon)
	var b []*Budgets
	for i := range 2 {
		b = append(b, nodeBudgets(t, dbs[i], nodes[i].ID(), []Budget{{Scope: ScopeGlobal, Period: PeriodDay, Tokens: 1_500, Action: ActionBlock}}, clk))
	}
	call := Spend{Session: "s", Agent: "a", Provider: "p", Model: "m", In: 500, Out: 500}
	if _, err := b[1].Reserve(context.Background(), call); err != nil { // n2's call, never settled
		t.Fatal(err)
	}
	fits := func() bool {
		h, err := b[0].Reserve(context.Background(), call)
		if err == nil {
			h.Release()
		}
		return err == nil
	}
	answers := make(chan map[string]bool)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b[0].KeepHolds(ctx, func(context.Context) map[string]bool { return <-answers }, slog.New(slog.DiscardHandler))
	}()
	defer func() { cancel(); close(answers); <-done }()
	answers <- map[string]bool{"n2": false} // n1 itself did not answer: no answer
	clk.WaitForWaiters(1, done)
	if fits() {
		t.Fatal("an answer without the sweeping node dropped n2's call")
	}
	clk.Advance(sweepEvery)
	answers <- map[string]bool{"n1": true, "n2": true}
	clk.WaitForWaiters(1, done)
	clk.Advance(sweepEvery)
	answers <- map[string]bool{"n1": true} // n2 missing once: a slow answer, maybe
	clk.WaitForWaiters(1, done)
	if fits() {
		t.Fatal("n2 missing from one answer and its call in flight no longer counts")
	}
	clk.Advance(sweepEvery)
	answers <- map[string]bool{"n1": true}
	clk.WaitForWaiters(1, done)
	if !fits() {
		t.Fatal("n2 stopped answering and its call in flight still counts")
	}
}

// TestSweepPrunesEndedPeriods: once a day a sweep deletes the cluster's
// counts of periods that ended; the current period's stay.
func TestSweepPrunesEndedPeriods(t *testing.T) {
	nodes, dbs := replicatest.Stores(t, 1, 1)
	clk := clock.NewFake(time.Date(2026, 11, 27, 23, 0, 0, 0, time.UTC))
	b := nodeBudgets(t, dbs[0], nodes[0].ID(), []Budget{{Scope: ScopeGlobal, Period: PeriodDay, Tokens: 10_000, Action: ActionBlock},
		{Scope: ScopeGlobal, Period: PeriodTotal, Tokens: 1 << 40, Action: ActionBlock}}, clk)
	call := Spend{Session: "s", Agent: "a", Provider: "p", Model: "m", In: 500, Out: 500}
	reserve := func() {
		h, err := b.Reserve(context.Background(), call)
		if err != nil {
			t.Fatal(err)
		}
		h.Settle(beamclaw.Usage{PromptTokens: 500, CompletionTokens: 500}, "p", "m")
	}
	counts := func() (keys []string) {
		_ = b.shared.area.View(func(tx *store.Tx) error {
			return tx.Bucket(bucketCounts).ForEach(func(k, _ []byte) error {
				keys = append(keys, strings.ReplaceAll(string(k), "\x00", "|"))
				return nil
			})
		})
		return keys
	}
	reserve()
	if err := b.Sweep(nil); err != nil { // the day's first sweep: nothing ended yet
		t.Fatal(err)
	}
	clk.Advance(2 * time.Hour) // the next UTC day
	reserve()
	if err := b.Sweep(nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"global|day|2026-11-28|", "global|total||"}
	if got := counts(); !slices.Equal(got, want) {
		t.Fatalf("counts after the day's sweep: %q, want %q", got, want)
	}
}

// TestARestartWithoutBudgetsSweepsTheEarlierLife: a node restarted with
// its budgets taken out of its config still sweeps the cluster's holds,
// so its earlier life's calls in flight stop counting on the nodes that
// kept their budgets.
func TestARestartWithoutBudgetsSweepsTheEarlierLife(t *testing.T) {
	nodes, dbs := replicatest.Stores(t, 2, 1)
	clk := clock.NewFake(noon)
	open := func(i int, list []Budget) *Budgets { return nodeBudgets(t, dbs[i], nodes[i].ID(), list, clk) }
	budget := []Budget{{Scope: ScopeGlobal, Period: PeriodDay, Tokens: 1_500, Action: ActionBlock}}
	n1, n2 := open(0, budget), open(1, budget)
	call := Spend{Session: "s", Agent: "a", Provider: "p", Model: "m", In: 500, Out: 500}
	if _, err := n2.Reserve(context.Background(), call); err != nil { // in flight when n2 stops
		t.Fatal(err)
	}
	if _, err := n1.Reserve(context.Background(), call); beamclaw.KindOf(err) != beamclaw.KindBudget {
		t.Fatalf("n1's call with n2's in flight: %v; want it refused", err)
	}
	n2 = open(1, nil) // n2 starts again without budgets
	if err := n2.Sweep(nil); err != nil {
		t.Fatal(err)
	}
	h, err := n1.Reserve(context.Background(), call)
	if err != nil {
		t.Fatalf("n2's earlier life's call still counts on n1: %v", err)
	}
	h.Release()
}
