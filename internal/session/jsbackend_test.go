package session

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/cluster/clustertest"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// The cluster backend keeps what the memory backend (the reference the
// bbolt backend is held to) keeps, change by change: history, pending
// messages, seen message ids, kept outputs (a reset drops those its
// messages no longer name), the thread index, responses, summaries,
// archiving, maintenance marks; and removing a session removes all of it.
func TestClusterBackendKeepsWhatTheOthersKeep(t *testing.T) {
	js := newJSBackend(clustertest.Start(t, 1, 1)[0])
	mem := newMemBackend()
	id := ID("ana", "default", "", false)
	if _, found, _, err := js.claimSession(id); err != nil || found {
		t.Fatalf("claim of a new session: found %v, %v", found, err)
	}
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	rec := record{UserID: "ana", AgentID: "default", Created: at, Updated: at}
	user := func(s string) beamclaw.Message { return beamclaw.Message{Role: beamclaw.RoleUser, Content: s} }
	tool := beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: "c1", Content: "view"}
	tkey := threadKey("ana", "default", "work")
	resp := &Response{ResponseHead: ResponseHead{ID: "resp-1", User: "ana", Agent: "default", Status: StatusCompleted,
		At: beamclaw.Point{Session: id, Seq: 3}}, Run: "run-1", Created: at, Done: at}
	changes := []change{
		{rec: with(rec, 2, 0, 2), created: true, msgs: []beamclaw.Message{user("hello"), {Role: beamclaw.RoleAssistant, Content: "hi"}},
			seen: &seenID{ID: "m1", RunID: "run-0", At: at}, index: map[string]string{tkey: "work"}},
		{rec: with(rec, 2, 1, 2), pend: []beamclaw.Message{user("queued")}, pendSeq: 0},
		{rec: with(rec, 4, 1, 4), from: 2, msgs: []beamclaw.Message{user("queued"), tool}, unpend: []uint64{0},
			forget: []string{"m1"}, seen: &seenID{ID: "m2", RunID: "run-1", At: at},
			outputs: []loop.Output{{Handle: "out-1", CallID: "c1", Tool: "bash", Content: "whole"}}, resp: resp},
		{rec: with(rec, 6, 1, 2), reset: true, from: 4, msgs: []beamclaw.Message{user("summary"), {Role: beamclaw.RoleAssistant, Content: "ok"}}},
	}
	for i, c := range changes {
		for name, b := range map[string]backend{"cluster": js, "memory": mem} {
			if err := b.apply(id, c); err != nil {
				t.Fatalf("%s: change %d: %v", name, i, err)
			}
		}
		want, _, _ := mem.load(id)
		got, found, err := js.load(id)
		if err != nil || !found {
			t.Fatalf("change %d: load: %v %v", i, found, err)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(stored{}, record{}, seenID{})); diff != "" {
			t.Errorf("after change %d (-memory +cluster):\n%s", i, diff)
		}
		wantOuts, _ := mem.outputs(id)
		if gotOuts, err := js.outputs(id); err != nil || !cmp.Equal(wantOuts, gotOuts) {
			t.Errorf("after change %d: outputs %v, want %v (%v)", i, gotOuts, wantOuts, err)
		}
	}
	if th, ok, err := js.thread(tkey); err != nil || !ok || th != "work" {
		t.Errorf("thread: %q %v %v", th, ok, err)
	}
	if ok, err := js.threaded(threadPrefix("ana", "default")); err != nil || !ok {
		t.Errorf("threaded: %v %v", ok, err)
	}
	var r Response
	if ok, err := js.response("resp-1", &r); err != nil || !ok || !cmp.Equal(*resp, r) {
		t.Errorf("response: %v %v %+v", ok, err, r)
	}
	sum, ok, err := js.summary(id)
	if wantSum, _, _ := mem.summary(id); err != nil || !ok || !cmp.Equal(wantSum, sum) {
		t.Errorf("summary: %+v, want %+v (%v)", sum, wantSum, err)
	}
	if err := js.setArchived([]string{id}, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := js.load(id); !st.rec.Archived.Equal(at.Add(time.Hour)) {
		t.Errorf("archived: %v", st.rec.Archived)
	}
	if err := js.setMaintained(id, maintMark{Nightly: 3}); err != nil {
		t.Fatal(err)
	}
	if err := js.setLastNight("2026-11-27"); err != nil {
		t.Fatal(err)
	}
	if marks, night, err := js.maintained(); err != nil || night != "2026-11-27" || marks[id].Nightly != 3 {
		t.Errorf("maintained: %v %q %v", marks, night, err)
	}
	if sums, err := js.summaries(); err != nil || len(sums) != 1 || js.count() != 1 {
		t.Errorf("summaries: %v %v, count %d", sums, err, js.count())
	}
	if err := js.remove([]string{id}); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := js.load(id); found {
		t.Error("a removed session loads")
	}
	if ok, _ := js.response("resp-1", &r); ok {
		t.Error("a removed session's response is still there")
	}
	if _, ok, _ := js.summary(id); ok || js.count() != 0 {
		t.Errorf("a removed session is still listed (count %d)", js.count())
	}
}

// with is rec after a change: its history and pending counters.
func with(rec record, nextSeq, nextPending uint64, messages int) record {
	rec.NextSeq, rec.NextPending, rec.Messages = nextSeq, nextPending, messages
	return rec
}

// A claim that reads a long journal writes the session's snapshot in
// place of its records: the next claim reads a few records and gets the
// same session, kept outputs and seen ids included.
func TestClusterBackendTrimsALongJournal(t *testing.T) {
	js := newJSBackend(clustertest.Start(t, 1, 1)[0])
	mem := newMemBackend()
	id := ID("ana", "default", "", false)
	_, _, cl, err := js.claimSession(id)
	if err != nil {
		t.Fatal(err)
	}
	rec := record{UserID: "ana", AgentID: "default"}
	for i := range snapshotAfter + 10 {
		c := change{rec: with(rec, uint64(i+1), 0, i+1), from: uint64(i), created: i == 0,
			msgs:    []beamclaw.Message{{Role: beamclaw.RoleTool, ToolCallID: fmt.Sprintf("c%d", i), Content: "view"}},
			outputs: []loop.Output{{Handle: fmt.Sprintf("out-%d", i+1), CallID: fmt.Sprintf("c%d", i), Content: "whole"}},
			seen:    &seenID{ID: fmt.Sprintf("m%d", i), RunID: "r"}}
		if err := js.applyClaimed(cl, id, c); err != nil {
			t.Fatal(err)
		}
		_ = mem.apply(id, c)
	}
	js.unclaim(id, cl)
	want, _, _ := mem.load(id)
	wantOuts, _ := mem.outputs(id)
	for range 2 { // the first claim trims, the second reads the snapshot
		st, found, cl, err := js.claimSession(id)
		if err != nil || !found {
			t.Fatalf("claim: %v %v", found, err)
		}
		if diff := cmp.Diff(want, st, cmp.AllowUnexported(stored{}, record{}, seenID{})); diff != "" {
			t.Fatalf("after the trim (-want +got):\n%s", diff)
		}
		js.unclaim(id, cl)
	}
	ctx, cancel := opCtx()
	defer cancel()
	recs, err := js.journal.Read(ctx, id)
	if err != nil || len(recs) > 3 {
		t.Fatalf("the journal holds %d records after the trim (%v)", len(recs), err)
	}
	if outs, err := js.outputs(id); err != nil || !cmp.Equal(wantOuts, outs) {
		t.Fatalf("outputs after the trim: %d of %d (%v)", len(outs), len(wantOuts), err)
	}
}
