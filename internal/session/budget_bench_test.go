package session

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

// lateBudgets lets a loop be built before the database its budgets read
// is open (newEnv opens it after the engine).
type lateBudgets struct{ b *usage.Budgets }

func (l *lateBudgets) Reserve(ctx context.Context, s beamclaw.Spend) (beamclaw.Hold, error) {
	return l.b.Reserve(ctx, s)
}

// BenchmarkPersistedTurnUnderBudgets is what the usage ledger, and then
// three budgets (a reservation and its settlement per model call), add
// to a persisted turn (issue 25): turns rotate between a Manager without
// either, one with the ledger (the daemon's default) and one with the
// ledger and the budgets, each on its own database on the same disk. It
// reports each one's p50 turn, what the ledger and the budgets add to it,
// and each one's commits a turn.
//
//	go test -run '^$' -bench PersistedTurnUnderBudgets -benchtime 2000x ./internal/session/
func BenchmarkPersistedTurnUnderBudgets(b *testing.B) {
	envs := []*env{newEnv(b, envOpts{lean: true}), ledgerEnv(b, nil), ledgerEnv(b, []usage.Budget{
		{Scope: usage.ScopeGlobal, Period: usage.PeriodDay, Tokens: 1 << 62, Action: usage.ActionBlock},
		{Scope: usage.ScopeUser, Period: usage.PeriodMonth, MicroUSD: 1 << 62, Action: usage.ActionWarn},
		{Scope: usage.ScopeAgent, Period: usage.PeriodDay, Tokens: 1 << 62, Action: usage.ActionBlock},
	})}
	turn := func(e *env) time.Duration {
		t0 := time.Now()
		r, _ := e.send(b, "local:ana", "hi")
		if ev := r.wait(b); ev.Type != beamclaw.EvFinal {
			b.Fatalf("the turn ended with %+v", ev)
		}
		return time.Since(t0)
	}
	took := make([][]time.Duration, len(envs))
	commits := make([]uint64, len(envs))
	for i, e := range envs {
		turn(e) // the session exists before the count starts
		commits[i] = e.db.Commits()
	}
	for i := 0; b.Loop(); i++ {
		for j := range envs { // each goes first in turn
			k := (i + j) % len(envs)
			took[k] = append(took[k], turn(envs[k]))
		}
	}
	for _, e := range envs[1:] {
		if rows, _, err := e.m.opts.Ledger.Report("agent", time.Time{}); err != nil || len(rows) != 1 || rows[0].Calls != len(took[0])+1 {
			b.Fatalf("the ledger holds %+v (%v), want %d calls", rows, err, len(took[0])+1)
		}
	}
	p50 := make([]float64, len(envs))
	for i, d := range took {
		slices.Sort(d)
		p50[i] = float64(d[len(d)/2].Nanoseconds()) / 1e3
		b.ReportMetric(float64(envs[i].db.Commits()-commits[i])/float64(len(d)), []string{"bare", "ledger", "budgets"}[i]+"-commits/turn")
	}
	b.ReportMetric(p50[0], "bare-p50-µs")
	b.ReportMetric(p50[1]-p50[0], "ledger-added-p50-µs")
	b.ReportMetric(p50[2]-p50[1], "budgets-added-p50-µs")
}

// ledgerEnv is a lean env whose sessions record their calls in a usage
// ledger, and whose loop reserves them against budgets when there are any.
func ledgerEnv(b *testing.B, budgets []usage.Budget) *env {
	late := &lateBudgets{}
	return newEnv(b, envOpts{lean: true, loop: func(o *loop.Options) {
		if len(budgets) > 0 {
			o.Budgets = late
		}
	}, session: func(o *Options) {
		l, err := usage.New(o.DB, usage.Rates{"test-model": {Input: 1, Output: 2}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		o.Ledger = l
		if late.b, err = usage.NewBudgets(l, budgets, nil, nil); err != nil {
			b.Fatal(err)
		}
	}})
}
