package usage

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/cluster/clustertest"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/store/replicatest"
)

// lossyLog is a node's log whose next write of the area "budgets" is
// lost on cue: before the cluster stored it, or after (its
// acknowledgement lost, the record stored all the same). It pings no
// one: a replica catches up when it writes or polls (every 5 s).
type lossyLog struct {
	store.Log
	mu   sync.Mutex
	lose string // "before", "after" or "" (none)
}

var errLost = errors.New("the write's answer was lost")

// lossyStore opens a store (n1.db) replicating node's areas through a
// lossyLog, closed at the test's end.
func lossyStore(t *testing.T, node *cluster.Node) (*store.DB, *lossyLog) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "n1.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	log := &lossyLog{Log: node.State()}
	db.Replicate(log, nil)
	return db, log
}

func (l *lossyLog) loseNext(when string) {
	l.mu.Lock()
	l.lose = when
	l.mu.Unlock()
}

func (l *lossyLog) Watch(ctx context.Context, _ string, _ func()) error {
	<-ctx.Done()
	return ctx.Err()
}

func (l *lossyLog) Append(ctx context.Context, area string, after uint64, data []byte) (uint64, bool, error) {
	l.mu.Lock()
	when := ""
	if area == "budgets" {
		when, l.lose = l.lose, ""
	}
	l.mu.Unlock()
	switch when {
	case "before":
		return 0, false, errLost
	case "after":
		if _, ok, err := l.Log.Append(ctx, area, after, data); err != nil || !ok {
			return 0, ok, err
		}
		return 0, false, errLost
	}
	return l.Log.Append(ctx, area, after, data)
}

// TestBudgetsRecoverLostWrites: a settle the cluster did not take goes
// with the node's next write (what the call used counts, its estimate no
// longer does), and a reservation stored whose acknowledgement was lost
// is refused to its caller and its hold finished by the next write, even
// one with nothing of its own to write (its estimate does not count for
// ever).
func TestBudgetsRecoverLostWrites(t *testing.T) {
	node := clustertest.Start(t, 1, 1)[0]
	db, log := lossyStore(t, node)
	b := nodeBudgets(t, db, node.ID(), []Budget{{Scope: ScopeGlobal, Period: PeriodDay, Tokens: 10_000, Action: ActionBlock}}, clock.NewFake(noon))
	call := Spend{Session: "s", Agent: "a", Provider: "p", Model: "m", In: 500, Out: 500} // 1,000 reserved
	reserve := func() beamclaw.Hold {
		t.Helper()
		h, err := b.Reserve(context.Background(), call)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	cluster := func() (c count, holds int) {
		t.Helper()
		err := b.shared.area.ViewLatest(func(tx *store.Tx) error {
			c, _ = readCount(tx.Bucket(bucketCounts), "global\x00day\x002026-11-27\x00")
			return tx.Bucket(bucketHolds).ForEach(func(_, _ []byte) error { holds++; return nil })
		})
		if err != nil {
			t.Fatal(err)
		}
		return c, holds
	}

	h := reserve()
	log.loseNext("before")
	h.Settle(beamclaw.Usage{PromptTokens: 100, CompletionTokens: 20}, "p", "m")
	if c, holds := cluster(); c.held.tokens != 1_000 || holds != 1 {
		t.Fatalf("the settle the cluster did not take changed its counts: %+v, %d holds", c, holds)
	}
	second := reserve() // the next write carries the settle
	if c, holds := cluster(); c.settled.tokens != 120 || c.held.tokens != 1_000 || holds != 1 {
		t.Fatalf("after the next write the cluster counts %+v with %d holds; want 120 used, 1,000 held (the second call's), 1 hold", c, holds)
	}
	second.Release()

	log.loseNext("after")
	if _, err := b.Reserve(context.Background(), call); beamclaw.KindOf(err) != beamclaw.KindUnavailable {
		t.Fatalf("a reservation whose acknowledgement was lost: %v; want the call refused as unavailable", err)
	}
	if err := b.Sweep(nil); err != nil { // the next write, with nothing of its own
		t.Fatal(err)
	}
	if c, holds := cluster(); c.held.tokens != 0 || holds != 0 {
		t.Fatalf("the reservation whose acknowledgement was lost still counts: %+v, %d holds", c, holds)
	}
}

// TestARefusalIsDecidedOnTheNewestCounts: a node whose replica has not
// heard of another node's settle yet (its log pings no one) does not
// refuse a call on the hold that settle gave back: a refusal stands only
// once decided on a replica up to date with the log.
func TestARefusalIsDecidedOnTheNewestCounts(t *testing.T) {
	nodes := clustertest.Start(t, 2, 1)
	db, _ := lossyStore(t, nodes[0]) // hears of the others' writes only when it writes or polls
	budget := []Budget{{Scope: ScopeGlobal, Period: PeriodDay, Tokens: 1_500, Action: ActionBlock}}
	clk := clock.NewFake(noon)
	n1 := nodeBudgets(t, db, nodes[0].ID(), budget, clk)
	n2 := nodeBudgets(t, replicatest.Open(t, nodes[1], "n2.db"), nodes[1].ID(), budget, clk)
	call := Spend{Session: "s", Agent: "a", Provider: "p", Model: "m", In: 500, Out: 500}
	h, err := n2.Reserve(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n1.Reserve(context.Background(), call); beamclaw.KindOf(err) != beamclaw.KindBudget {
		t.Fatalf("n1's call with n2's in flight: %v; want it refused", err)
	}
	h.Settle(beamclaw.Usage{PromptTokens: 5, CompletionTokens: 5}, "p", "m") // 10 used: room for another call
	h1, err := n1.Reserve(context.Background(), call)
	if err != nil {
		t.Fatalf("n1's call once n2's settled: %v", err)
	}
	h1.Release()
}
