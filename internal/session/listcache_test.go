package session

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// The daemon's list keeps its summaries in memory once listed: every
// turn, delete, reset and archive after that shows in the next list, the
// same as a fresh read of the file (the CLI's Catalog) shows it.
func TestCachedListFollowsEveryWrite(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.p.add(say("a1"), say("b1"), say("c1"), say("a2"))
	for _, u := range []string{"ana", "bo", "cy"} {
		rec, _ := e.send(t, u, "first of "+u)
		rec.wait(t)
	}
	byID := func(sums []Summary) []Summary {
		out := slices.Clone(sums)
		for i := range out {
			out[i].Live, out[i].Working, out[i].Waiting = false, false, false // live state: the catalog cannot know
		}
		slices.SortFunc(out, func(a, b Summary) int { return cmpString(a.ID, b.ID) })
		return out
	}
	check := func(when string) {
		t.Helper()
		cached, err := e.m.List(Filter{Archived: true})
		if err != nil {
			t.Fatal(err)
		}
		cat, err := OpenCatalog(e.db)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := cat.List(Filter{Archived: true})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(byID(fresh), byID(cached)); d != "" {
			t.Errorf("%s: the cached list differs from the file (-file +cached):\n%s", when, d)
		}
	}
	check("first list")
	rec, _ := e.send(t, "ana", "second of ana")
	rec.wait(t)
	check("after a turn")
	sums, _ := e.m.List(Filter{UserID: "bo"})
	if err := e.m.Delete(context.Background(), sums[0].ID); err != nil {
		t.Fatal(err)
	}
	check("after a delete")
	cy, _ := e.m.List(Filter{UserID: "cy"})
	if err := e.m.Reset(context.Background(), cy[0].ID); err != nil {
		t.Fatal(err)
	}
	check("after a reset")
	e.m.mu.Lock() // as Expire does: the idle lane closes, then the session is archived
	closed := e.m.closeIdle(e.m.live[cy[0].ID], e.m.clock.Now().UnixNano()+1)
	e.m.mu.Unlock()
	if !closed {
		t.Fatal("cy's idle session did not close")
	}
	if err := e.m.store.setArchived([]string{cy[0].ID}, e.m.clock.Now()); err != nil {
		t.Fatal(err)
	}
	check("after an archive")
	if got, _ := e.m.List(Filter{}); len(got) != 1 || got[0].Messages != 4 {
		t.Errorf("the active sessions after it all: %+v, want ana's alone with 4 messages", got)
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// BenchmarkListStored10k lists 10,000 stored sessions, as the console's
// and /api/v1/sessions' first page does, once the list is warm.
func BenchmarkListStored10k(b *testing.B) {
	e := newEnv(b, envOpts{lean: true})
	const n = 10000
	for i := range n {
		rec := record{UserID: fmt.Sprint("u", i), AgentID: "default", Channel: "api", Messages: 2}
		if err := e.m.store.apply(fmt.Sprintf("session-%064d", i), change{rec: rec, created: true}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := e.m.List(Filter{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if sums, err := e.m.List(Filter{}); err != nil || len(sums) != n {
			b.Fatalf("%d sessions, %v", len(sums), err)
		}
	}
}

// A session's state in a list: waiting (on its person: an approval is
// asked), then idle once answered and done.
func TestListedStateFollowsTheRun(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}})
	sid := e.sid("local:ana")
	e.p.add(callTool("write", `{"text":"x"}`), say("done"))
	r, _ := e.send(t, "local:ana", "go")
	waitUntil(t, "approval request", func() bool { return len(r.of(beamclaw.EvApprovalRequest)) == 1 })
	state := func() string {
		sums, err := e.m.List(Filter{})
		if err != nil || len(sums) != 1 {
			t.Fatalf("list: %v %v", sums, err)
		}
		return sums[0].State()
	}
	if got := state(); got != "waiting" {
		t.Errorf("while the approval is asked: %q, want waiting", got)
	}
	if err := e.m.Decide(t.Context(), sid, r.of(beamclaw.EvApprovalRequest)[0].Approval.ID, testOrigin, beamclaw.Allow); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	waitUntil(t, "the run to end", func() bool { return state() == "idle" })
}
