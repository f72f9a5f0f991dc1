package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

var lookupFn = beamclaw.ToolDef{Name: "lookup", Parameters: []byte(`{"type":"object"}`), Source: beamclaw.SourceClient}

// respond sends content (or results) as a Responses API request would:
// the client's function, a response id, continuing from.
func (e *env) respond(t *testing.T, id string, from *beamclaw.Point, content string, results ...beamclaw.ToolResult) beamclaw.RunEvent {
	t.Helper()
	rec := newRecorder()
	in := beamclaw.Inbound{Channel: beamclaw.ChannelHTTP, UserID: "api:ann", AgentID: "default", Content: content, Route: rec,
		NoApproval: true, AckOnAnswer: true, Functions: []beamclaw.ToolDef{lookupFn}, ToolResults: results, From: from,
		Response: &beamclaw.ResponseRef{ID: id, Echo: []byte(`{"model":"default"}`)}}
	if from == nil {
		in.Thread = "r-" + id
	}
	if _, err := e.m.Send(context.Background(), in); err != nil {
		t.Fatalf("Send %s: %v", id, err)
	}
	return rec.wait(t)
}

func (e *env) stored(t *testing.T, id string) Response {
	t.Helper()
	r, err := e.m.Response(context.Background(), "api:ann", id)
	if err != nil {
		t.Fatalf("Response(%s): %v", id, err)
	}
	return r
}

// A run that calls the client's function parks with the call stored; the
// client's result, sent after a restart, continues the same turn, and each
// response's record says where the conversation stood.
func TestClientFunctionCallSurvivesARestart(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.p.add(callTool("lookup", `{"q":"ada"}`))
	ev := e.respond(t, "resp_1", nil, "who is ada?")
	if ev.Type != beamclaw.EvFinal || len(ev.Calls) != 1 || ev.Calls[0].Name != "lookup" {
		t.Fatalf("first response %+v, want the client's lookup call", ev)
	}
	call := ev.Calls[0]
	r1 := e.stored(t, "resp_1")
	if r1.Status != StatusCompleted || len(openCalls(r1.Output)) != 1 || r1.At.Session != ev.SessionID {
		t.Fatalf("record %+v, want completed with the open call", r1)
	}

	// A new message cannot skip the result.
	rec := newRecorder()
	_, err := e.m.Send(context.Background(), beamclaw.Inbound{Channel: beamclaw.ChannelHTTP, UserID: "api:ann", AgentID: "default",
		Content: "never mind", Route: rec, From: &r1.At, Response: &beamclaw.ResponseRef{ID: "resp_x"}})
	if !errors.Is(err, beamclaw.ErrOpenCalls) || beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Fatalf("a new message over an open call: %v, want KindInvalid ErrOpenCalls", err)
	}
	// Nor can a result for a call that was never made.
	_, err = e.m.Send(context.Background(), beamclaw.Inbound{Channel: beamclaw.ChannelHTTP, UserID: "api:ann", AgentID: "default",
		Route: rec, From: &r1.At, ToolResults: []beamclaw.ToolResult{{ToolCallID: "nope", Content: "x"}}})
	if !errors.Is(err, beamclaw.ErrOpenCalls) {
		t.Fatalf("a result for an unknown call: %v, want ErrOpenCalls", err)
	}

	path := e.path
	e.stop()
	e = newEnv(t, envOpts{path: path})
	e.p.add(say("Ada Lovelace, 1815"))
	ev = e.respond(t, "resp_2", &r1.At, "", beamclaw.ToolResult{ToolCallID: call.ID, Name: "lookup", Content: "born 1815"})
	if ev.Type != beamclaw.EvFinal || ev.Text != "Ada Lovelace, 1815" || ev.SessionID != r1.At.Session {
		t.Fatalf("after the result: %+v, want the answer in the same session", ev)
	}
	reqs := e.p.requests()
	got := roles(reqs[len(reqs)-1].Messages)
	want := []string{"user:who is ada?", "assistant:", "tool:born 1815"}
	if len(got) != 3 || got[0] != want[0] || got[2] != want[2] {
		t.Errorf("the model saw %q, want %q", got, want)
	}
	r2 := e.stored(t, "resp_2")
	if r2.At.Seq != r1.At.Seq+2 || r2.Output[len(r2.Output)-1].Content != "Ada Lovelace, 1815" {
		t.Errorf("second record at %d output %+v", r2.At.Seq, r2.Output)
	}
	if _, err := e.m.Response(context.Background(), "api:bob", "resp_2"); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("another user's GET: %v, want not found", err)
	}
}

// Continuing from an older response branches: a new session holds the
// history up to it, and the original is untouched.
func TestContinuingAnOlderResponseBranches(t *testing.T) {
	e := newEnv(t, envOpts{})
	first := e.respond(t, "resp_a", nil, "one")
	a := e.stored(t, "resp_a")
	e.respond(t, "resp_b", &a.At, "two")
	b := e.stored(t, "resp_b")
	if b.At.Session != first.SessionID {
		t.Fatalf("continuing the newest response went to %s, not %s", b.At.Session, first.SessionID)
	}
	branch := e.respond(t, "resp_c", &a.At, "three")
	if branch.SessionID == first.SessionID {
		t.Fatal("continuing an older response wrote into the original")
	}
	_, orig, err := e.m.Show(first.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(orig); len(got) != 4 || got[2] != "user:two" {
		t.Errorf("original %q, want its two turns", got)
	}
	_, br, err := e.m.Show(branch.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(br); len(got) != 4 || got[0] != "user:one" || got[2] != "user:three" {
		t.Errorf("branch %q, want the first turn and the new one", got)
	}
	// Deleting a conversation deletes its responses.
	if err := e.m.Delete(context.Background(), first.SessionID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.m.Response(context.Background(), "api:ann", "resp_b"); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("a deleted conversation's response: %v, want not found", err)
	}
	if _, err := e.m.Response(context.Background(), "api:ann", "resp_c"); err != nil {
		t.Errorf("the branch's response: %v", err)
	}
}

// Canceling a response stops its run and stores it as cancelled.
func TestCancelResponse(t *testing.T) {
	e := newEnv(t, envOpts{})
	asked := e.p.addHang()
	rec := newRecorder()
	in := beamclaw.Inbound{Channel: beamclaw.ChannelHTTP, UserID: "api:ann", AgentID: "default", Content: "slow", Route: rec,
		NoApproval: true, AckOnAnswer: true, Thread: "r-slow", Response: &beamclaw.ResponseRef{ID: "resp_slow"}}
	if _, err := e.m.Send(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	<-asked
	if err := e.m.CancelResponse(context.Background(), "api:bob", "resp_slow"); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Fatalf("another user's cancel: %v", err)
	}
	if err := e.m.CancelResponse(context.Background(), "api:ann", "resp_slow"); err != nil {
		t.Fatal(err)
	}
	if ev := rec.wait(t); ev.Type != beamclaw.EvError {
		t.Fatalf("canceled run ended with %+v", ev)
	}
	if r := e.stored(t, "resp_slow"); r.Status != StatusCancelled {
		t.Errorf("status %q, want cancelled", r.Status)
	}
}

// A conversation compacted while it waits still continues from its newest
// response, a parked call's result included; after a reset no response of
// the history that is gone continues.
func TestResponsesAfterCompactionAndReset(t *testing.T) {
	e, fc, _ := maintEnv(t, MaintenanceOptions{Scan: 24 * time.Hour, IdleAfter: 10 * time.Minute,
		IdleThresholdPct: 1, IdleTargetPct: 1}, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), "")
	long := strings.Repeat("a long message about the project plan. ", 200)
	e.respond(t, "resp_a", nil, long)
	a := e.stored(t, "resp_a")
	e.respond(t, "resp_b", &a.At, long)
	b := e.stored(t, "resp_b")
	e.p.add(callTool("lookup", `{"q":"plan"}`))
	call := e.respond(t, "resp_c", &b.At, "look it up")
	c := e.stored(t, "resp_c")
	waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	fc.Advance(11 * time.Minute)
	if err := e.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h, _ := e.m.History(c.At.Session); h[0].Role != beamclaw.RoleSystem {
		t.Fatalf("not compacted: %v", roles(h))
	}
	e.p.add(say("found the plan"))
	ev := e.respond(t, "resp_d", &c.At, "", beamclaw.ToolResult{ToolCallID: call.Calls[0].ID, Content: "plan v2"})
	if ev.Type != beamclaw.EvFinal || ev.SessionID != c.At.Session || ev.Text != "found the plan" {
		t.Fatalf("after compaction: %+v, want the answer in the same conversation", ev)
	}
	d := e.stored(t, "resp_d")
	if err := e.m.Reset(context.Background(), d.At.Session); err != nil {
		t.Fatal(err)
	}
	_, err := e.m.Send(context.Background(), beamclaw.Inbound{Channel: beamclaw.ChannelHTTP, UserID: "api:ann", AgentID: "default",
		Content: "still there?", Route: newRecorder(), From: &d.At, Response: &beamclaw.ResponseRef{ID: "resp_e"}})
	if beamclaw.KindOf(err) != beamclaw.KindConflict {
		t.Errorf("continuing a response of a reset conversation: %v, want KindConflict", err)
	}
}

// A user message queued while the run ahead stops at the client's calls
// closes them: the model is never sent calls without results.
func TestQueuedMessageClosesOpenCalls(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.p.add(callTool("lookup", `{}`))
	release := make(chan struct{})
	e.p.steps[0] = func(ctx context.Context, req beamclaw.ChatRequest, f func(string)) (beamclaw.ChatResponse, error) {
		<-release
		return callTool("lookup", `{}`)(ctx, req, f)
	}
	rec1 := newRecorder()
	in := beamclaw.Inbound{Channel: beamclaw.ChannelHTTP, UserID: "api:ann", AgentID: "default", Content: "look", Route: rec1,
		NoApproval: true, Functions: []beamclaw.ToolDef{lookupFn}, Thread: "r-q"}
	if _, err := e.m.Send(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	rec2 := newRecorder()
	in.Content, in.Route, in.Functions = "never mind", rec2, nil // a plain message: queued behind the run
	if _, err := e.m.Send(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	close(release)
	if ev := rec1.wait(t); len(ev.Calls) != 1 {
		t.Fatalf("first run: %+v", ev)
	}
	if ev := rec2.wait(t); ev.Type != beamclaw.EvFinal {
		t.Fatalf("queued message: %+v", ev)
	}
	reqs := e.p.requests()
	got := roles(reqs[len(reqs)-1].Messages)
	if len(got) != 4 || got[2] != "tool:"+msgNoResult || got[3] != "user:never mind" {
		t.Errorf("the model saw %q", got)
	}
}

// Two requests continuing the same newest response at once: the one that
// finds the conversation gone on is refused (409), never appended after
// the other's turn; sent again it branches.
func TestContinuingAMovedConversationConflicts(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.respond(t, "resp_a", nil, "one")
	a := e.stored(t, "resp_a")
	e.respond(t, "resp_b", &a.At, "two") // the conversation went on past a
	l := e.m.liveLane(a.At.Session)
	l.mu.Lock()
	err := l.checkInput(&run{expect: a.At.Seq, msgs: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "three"}}}, true, l.history)
	l.mu.Unlock()
	if !errors.Is(err, errWentOn) || beamclaw.KindOf(err) != beamclaw.KindConflict {
		t.Fatalf("a stale continuation: %v, want a conflict", err)
	}
	if ev := e.respond(t, "resp_c", &a.At, "three"); ev.SessionID == a.At.Session {
		t.Error("sent again, it did not branch")
	}
}

// The client's input is checked against the calls the conversation waits
// on: every one answered once, nothing else, and no new message before.
func TestMatchOpenCalls(t *testing.T) {
	open := []beamclaw.ToolCall{{ID: "a"}, {ID: "b"}}
	res := func(ids ...string) []beamclaw.Message {
		var out []beamclaw.Message
		for _, id := range ids {
			out = append(out, beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: id})
		}
		return out
	}
	user := []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hi"}}
	cases := []struct {
		name    string
		open    []beamclaw.ToolCall
		input   []beamclaw.Message
		results bool
		want    string // in the error; "" for none
	}{
		{"all answered", open, res("b", "a"), true, ""},
		{"one missing", open, res("a"), true, "no result was sent for the function calls b"},
		{"answered twice", open, res("a", "a", "b"), true, `the function call "a" has two results`},
		{"unknown call", open, res("a", "b", "c"), true, `no function call "c" waits`},
		{"results with nothing open", nil, res("a"), true, `no function call "a" waits`},
		{"a new message over open calls", open, user, false, "waits for the results of the function calls a, b"},
		{"a new message, nothing open", nil, user, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := matchOpenCalls(tc.open, tc.input, tc.results)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, beamclaw.ErrOpenCalls)):
				t.Errorf("got %v, want an ErrOpenCalls saying %q", err, tc.want)
			}
		})
	}
}
