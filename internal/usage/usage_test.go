package usage

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/leak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

func TestMain(m *testing.M) { leak.VerifyTestMain(m) }

func TestPrice(t *testing.T) {
	r := Rates{"openai/gpt-4o-mini": {Input: 0.15, Output: 0.60, Cached: 0.075}, "llama": {Input: 1, Output: 1}}
	for _, tc := range []struct {
		provider, model string
		in, out, cached int
		want            int64
		ok              bool
	}{
		{"openai", "gpt-4o-mini", 1_000_000, 0, 0, 150_000, true},                         // $0.15
		{"openai", "gpt-4o-mini", 1_000_000, 1_000_000, 500_000, 112_500 + 600_000, true}, // half the prompt cached
		{"groq", "llama", 10, 5, 0, 15, true},                                             // by model alone
		{"openai", "gpt-5", 10, 5, 0, 0, false},                                           // no rate
		{"groq", "llama", 10, 0, 99, 10, true},                                            // cached beyond the prompt is the prompt; no cached price = input
		{"openai", "gpt-4o-mini-2024-07-18", 1_000_000, 0, 0, 150_000, true},              // a dated name the provider answers with
		{"openai", "gpt-4o-minister", 10, 0, 0, 0, false},                                 // not a dated name of it
	} {
		got, ok := r.Price(tc.provider, tc.model, tc.in, tc.out, tc.cached)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Price(%s/%s, %d, %d, %d) = %d %v, want %d %v", tc.provider, tc.model, tc.in, tc.out, tc.cached, got, ok, tc.want, tc.ok)
		}
	}
}

func TestOriginOf(t *testing.T) {
	for _, tc := range []struct {
		ch     beamclaw.Channel
		thread string
		maint  bool
		want   string
	}{
		{beamclaw.ChannelTelegram, "", false, OriginInteractive},
		{beamclaw.ChannelTelegram, "", true, OriginMaintenance},
		{beamclaw.ChannelA2A, "", false, OriginA2A},
		{beamclaw.ChannelScheduler, "heartbeat:default", false, OriginHeartbeat},
		{beamclaw.ChannelScheduler, "sched:j1", false, OriginJob},
	} {
		if got := OriginOf(tc.ch, tc.thread, tc.maint); got != tc.want {
			t.Errorf("OriginOf(%s, %q, %v) = %s, want %s", tc.ch, tc.thread, tc.maint, got, tc.want)
		}
	}
}

// Entries recorded survive a reopen and sum by every grouping; a report
// since a time reads only the entries since.
func TestLedgerRecordsAndReports(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beamclaw.db")
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(db, Rates{"m": {Input: 1, Output: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	day1 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	day2 := day1.AddDate(0, 0, 1)
	call := func(at time.Time, in, out int) beamclaw.LLMCall {
		return beamclaw.LLMCall{At: at, Provider: "p", Model: "m", Usage: beamclaw.Usage{PromptTokens: in, CompletionTokens: out}}
	}
	ana := Attribution{Session: "s1", User: "tg:1", Agent: "default", Channel: beamclaw.ChannelTelegram, Origin: OriginInteractive}
	job := Attribution{Session: "s2", User: "tg:1", Agent: "coder", Channel: beamclaw.ChannelScheduler, Origin: OriginJob}
	ctx := context.Background()
	if err := l.Record(ctx, l.Entries(ana, []beamclaw.LLMCall{call(day1, 100, 10), call(day2, 200, 20)})); err != nil {
		t.Fatal(err)
	}
	unpriced := call(day2, 5, 5)
	unpriced.Model, unpriced.Estimated = "other", true
	if err := l.Record(ctx, l.Entries(job, []beamclaw.LLMCall{unpriced})); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = store.Open(path, store.Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l, _ = New(db, nil, nil)
	rows, total, err := l.Report("agent", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if total.Calls != 3 || total.In != 305 || total.Out != 35 || total.MicroUSD != 300+60 || total.Estimated != 1 || total.Unpriced != 1 {
		t.Errorf("total %+v", total)
	}
	if len(rows) != 2 || rows[0].Key != "default" || rows[1].Key != "coder" {
		t.Errorf("rows by agent, costliest first: %+v", rows)
	}
	days, _, _ := l.Report("day", time.Time{})
	if len(days) != 2 || days[0].Key != "2026-11-26" || days[1].Calls != 2 {
		t.Errorf("by day: %+v", days)
	}
	since, total2, _ := l.Report("origin", day2)
	if total2.Calls != 2 || len(since) != 2 {
		t.Errorf("since day 2: %+v %+v", since, total2)
	}
	if _, _, err := l.Report("color", time.Time{}); err == nil {
		t.Error("an unknown grouping is accepted")
	}
	per, err := l.SessionTotals("s1", "s2", "s3")
	if err != nil {
		t.Fatal(err)
	}
	if s1 := per["s1"]; s1.Calls != 2 || s1.In != 300 || s1.Out != 30 || s1.MicroUSD != 360 {
		t.Errorf("s1's total %+v", s1)
	}
	if s2 := per["s2"]; s2.Calls != 1 || s2.In != 5 || s2.Unpriced != 1 {
		t.Errorf("s2's total %+v", s2)
	}
	if _, ok := per["s3"]; ok || len(per) != 2 {
		t.Errorf("totals %+v, want s1 and s2 only", per)
	}
}
