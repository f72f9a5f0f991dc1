package session

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// toolResults returns the tool messages the provider saw last.
func toolResults(p *scripted) []string {
	reqs := p.requests()
	var out []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == beamclaw.RoleTool {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestApprovalReadOnlyDenies(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}})
	e.p.add(callTool("write", `{"text":"x"}`), say("done"))
	r, _ := e.send(t, "local:ana", "go", func(in *beamclaw.Inbound) { in.Autonomy = beamclaw.ReadOnly })
	if ev := r.wait(t); ev.Text != "done" {
		t.Fatalf("final %q", ev.Text)
	}
	if tl.runs.Load() != 0 {
		t.Error("a tool needing approval ran at read_only")
	}
	if n := len(r.of(beamclaw.EvApprovalRequest)); n != 0 {
		t.Errorf("%d approval requests at read_only, want 0", n)
	}
	res := toolResults(e.p)
	if len(res) != 1 || !strings.HasPrefix(res[0], "denied: ") {
		t.Errorf("tool results %q, want one denial", res)
	}
}

func TestApprovalAlwaysCoversOnlyTheSameShape(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}})
	sid := e.sid("local:ana")

	// 1: asked, answered Always through Decide.
	e.p.add(callTool("write", `{"text":"x"}`), say("first"))
	r1, _ := e.send(t, "local:ana", "go")
	waitUntil(t, "approval request", func() bool { return len(r1.of(beamclaw.EvApprovalRequest)) == 1 })
	req := r1.of(beamclaw.EvApprovalRequest)[0].Approval
	if err := e.m.Decide(t.Context(), sid, req.ID, testOrigin, beamclaw.Always); err != nil {
		t.Fatal(err)
	}
	if ev := r1.wait(t); ev.Text != "first" || tl.runs.Load() != 1 {
		t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
	}

	// 2: the identical call runs without asking.
	e.p.add(callTool("write", `{ "text" : "x" }`), say("second"))
	r2, _ := e.send(t, "local:ana", "again")
	if ev := r2.wait(t); ev.Text != "second" || tl.runs.Load() != 2 {
		t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
	}
	if n := len(r2.of(beamclaw.EvApprovalRequest)); n != 0 {
		t.Errorf("identical call asked again (%d requests)", n)
	}

	// 3: other arguments ask again; "/no" sent as a message denies.
	e.p.add(callTool("write", `{"text":"y"}`), say("third"))
	r3, _ := e.send(t, "local:ana", "other")
	waitUntil(t, "approval request", func() bool { return len(r3.of(beamclaw.EvApprovalRequest)) == 1 })
	ans, _ := e.send(t, "local:ana", "/no")
	if ev := ans.wait(t); ev.Type != beamclaw.EvFinal || !strings.HasPrefix(ev.Text, "Denied") {
		t.Errorf("answer run ended with %s %q", ev.Type, ev.Text)
	}
	if ev := r3.wait(t); ev.Text != "third" || tl.runs.Load() != 2 {
		t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
	}
	if got := toolResults(e.p); !strings.Contains(got[len(got)-1], "user denied") {
		t.Errorf("last tool result %q, want the denial", got[len(got)-1])
	}
	resolved := e.ev.Named("approval_resolved")
	if len(resolved) != 2 {
		t.Errorf("%d approval_resolved events, want 2", len(resolved))
	}
}

func TestApprovalYesMessage(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}})
	e.p.add(callTool("write", `{"text":"x"}`), say("done"))
	r, _ := e.send(t, "local:ana", "go")
	waitUntil(t, "approval request", func() bool { return len(r.of(beamclaw.EvApprovalRequest)) == 1 })
	e.send(t, "local:ana", "/yes")
	if ev := r.wait(t); ev.Text != "done" || tl.runs.Load() != 1 {
		t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
	}
	// No approval waits now: "/yes" says so, and reaches no model.
	before := len(e.p.requests())
	r2, _ := e.send(t, "local:ana", "/yes")
	if ev := r2.wait(t); ev.Text != msgNothingToApprove {
		t.Errorf("got %q", ev.Text)
	}
	if len(e.p.requests()) != before {
		t.Error("a stray /yes was sent to the model")
	}
}

func TestApprovalTimeoutDenies(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl},
		session: func(o *Options) { o.ApprovalTimeout = time.Nanosecond }})
	e.p.add(callTool("write", `{"text":"x"}`), say("done"))
	r, _ := e.send(t, "local:ana", "go")
	if ev := r.wait(t); ev.Text != "done" {
		t.Fatalf("final %q", ev.Text)
	}
	if tl.runs.Load() != 0 {
		t.Error("tool ran without approval")
	}
	if got := toolResults(e.p); len(got) != 1 || !strings.Contains(got[0], "in time") {
		t.Errorf("tool results %q, want a timeout denial", got)
	}
}

func TestApprovalFullRunsWithoutAsking(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}, session: func(o *Options) {
		o.Autonomy = func(string) beamclaw.Autonomy { return beamclaw.Full }
	}})
	e.p.add(callTool("write", `{"text":"x"}`), say("done"))
	r, _ := e.send(t, "local:ana", "go")
	if ev := r.wait(t); ev.Text != "done" || tl.runs.Load() != 1 {
		t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
	}
	// The channel ceiling lowers the agent's full autonomy.
	e.p.add(callTool("write", `{"text":"z"}`), say("capped"))
	r2, _ := e.send(t, "local:ana", "go", func(in *beamclaw.Inbound) { in.Autonomy = beamclaw.ReadOnly })
	if ev := r2.wait(t); ev.Text != "capped" || tl.runs.Load() != 1 {
		t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
	}
}

func TestDecideUnknown(t *testing.T) {
	e := newEnv(t, envOpts{})
	err := e.m.Decide(t.Context(), e.sid("local:nobody"), "appr-x", testOrigin, beamclaw.Allow)
	if beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("Decide on nothing: %v, want not found", err)
	}
}

func TestApprovalImpossibleOnRouteDeniesAtOnce(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	// A long approval timeout: the run must not wait for it.
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}, session: func(o *Options) { o.ApprovalTimeout = time.Hour }})
	e.p.add(callTool("write", `{"text":"x"}`), say("done"))
	r, _ := e.send(t, "api:ana", "go", func(in *beamclaw.Inbound) { in.Channel = "http"; in.NoApproval = true })
	if ev := r.wait(t); ev.Text != "done" {
		t.Fatalf("final %q", ev.Text)
	}
	if tl.runs.Load() != 0 {
		t.Error("a tool needing approval ran without one")
	}
	if n := len(r.of(beamclaw.EvApprovalRequest)); n != 0 {
		t.Errorf("%d approval requests on a route that cannot answer, want 0", n)
	}
	res := toolResults(e.p)
	if len(res) != 1 || !strings.Contains(res[0], "channel cannot ask for one") {
		t.Errorf("tool results %q, want the reason", res)
	}
}

func TestDecideForChecksTheUser(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}})
	e.p.add(callTool("write", `{"text":"x"}`), say("done"))
	r, _ := e.send(t, "tg:1", "go")
	waitUntil(t, "approval request", func() bool { return len(r.of(beamclaw.EvApprovalRequest)) == 1 })
	id := r.of(beamclaw.EvApprovalRequest)[0].Approval.ID
	cases := []struct {
		name, user, id string
		kind           beamclaw.Kind
	}{
		{"another user cannot answer", "tg:2", id, beamclaw.KindNotFound},
		{"empty id is refused", "tg:1", "", beamclaw.KindInvalid},
		{"unknown id", "tg:1", "appr_nope", beamclaw.KindNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := e.m.DecideFor(t.Context(), tc.user, tc.id, testOrigin, beamclaw.Allow)
			if err == nil || beamclaw.KindOf(err) != tc.kind {
				t.Fatalf("err %v, want kind %s", err, tc.kind)
			}
		})
	}
	if err := e.m.DecideFor(t.Context(), "tg:1", id, testOrigin, beamclaw.Allow); err != nil {
		t.Fatal(err)
	}
	if ev := r.wait(t); ev.Text != "done" || tl.runs.Load() != 1 {
		t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
	}
}

// An approval is answered only where it was asked: /yes from another
// origin of the same session (the same user on another connection, or the
// OpenAI-compatible API) is told nothing waits there, and the call waits
// on; from its own origin it runs. With cross-channel answering on,
// another origin of the session may answer, the API still never.
func TestApprovalAnsweredOnlyWhereAsked(t *testing.T) {
	for _, cross := range []bool{false, true} {
		t.Run(fmt.Sprintf("cross_channel=%v", cross), func(t *testing.T) {
			tl := &echoTool{name: "write", approval: true}
			e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}, session: func(o *Options) { o.CrossChannelApprovals = cross }})
			e.p.add(callTool("write", `{"text":"x"}`), say("done"))
			r, _ := e.send(t, "local:ana", "go")
			waitUntil(t, "approval request", func() bool { return len(r.of(beamclaw.EvApprovalRequest)) == 1 })
			api, _ := e.send(t, "local:ana", "/yes", func(in *beamclaw.Inbound) {
				in.Channel, in.NoApproval, in.Origin = "http", true, ""
			})
			if ev := api.wait(t); ev.Text != msgNothingToApprove {
				t.Errorf("/yes over the API answered %q", ev.Text)
			}
			other, _ := e.send(t, "local:ana", "/yes", func(in *beamclaw.Inbound) { in.Origin = "tui:other-connection" })
			ev := other.wait(t)
			if cross {
				if !strings.HasPrefix(ev.Text, "Approved") {
					t.Fatalf("/yes from another origin with cross-channel on: %q", ev.Text)
				}
			} else {
				if ev.Text != msgNothingToApprove {
					t.Fatalf("/yes from another origin answered %q", ev.Text)
				}
				if tl.runs.Load() != 0 {
					t.Fatal("the tool ran on another origin's /yes")
				}
				if err := e.m.Decide(t.Context(), e.sid("local:ana"), "", "tui:other-connection", beamclaw.Allow); beamclaw.KindOf(err) != beamclaw.KindNotFound {
					t.Fatalf("Decide from another origin: %v, want not found", err)
				}
				mine, _ := e.send(t, "local:ana", "/yes")
				if ev := mine.wait(t); !strings.HasPrefix(ev.Text, "Approved") {
					t.Fatalf("/yes where it was asked: %q", ev.Text)
				}
			}
			if ev := r.wait(t); ev.Text != "done" || tl.runs.Load() != 1 {
				t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
			}
		})
	}
}

// A run with the trust of another channel (Inbound.Trust: a scheduled
// job made over HTTP) is capped by that channel's ceiling as well.
func TestTrustChannelCeilingApplies(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}, session: func(o *Options) {
		o.Autonomy = func(string) beamclaw.Autonomy { return beamclaw.Full }
		o.Ceilings = map[beamclaw.Channel]beamclaw.Autonomy{beamclaw.ChannelHTTP: beamclaw.ReadOnly}
	}})
	sched := func(in *beamclaw.Inbound) { in.Channel, in.NoApproval = beamclaw.ChannelScheduler, true }
	e.p.add(callTool("write", `{"text":"x"}`), say("local"))
	r, _ := e.send(t, "api:ana", "go", sched)
	if ev := r.wait(t); ev.Text != "local" || tl.runs.Load() != 1 {
		t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
	}
	e.p.add(callTool("write", `{"text":"y"}`), say("as http"))
	r2, _ := e.send(t, "api:ana", "go", sched, func(in *beamclaw.Inbound) { in.Trust = beamclaw.ChannelHTTP })
	if ev := r2.wait(t); ev.Text != "as http" || tl.runs.Load() != 1 {
		t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
	}
	if got := toolResults(e.p); len(got) != 2 || !strings.Contains(got[1], "read_only") {
		t.Errorf("tool results %q, want a read_only denial", got)
	}
}

// answering answers every approval request the moment it is delivered,
// as a fast client does, then records the event.
type answering struct {
	*recorder
	answer func(*beamclaw.ApprovalRequest) error
	errs   chan error
}

func (a answering) Deliver(ev beamclaw.RunEvent) {
	if ev.Type == beamclaw.EvApprovalRequest {
		a.errs <- a.answer(ev.Approval)
	}
	a.recorder.Deliver(ev)
}

// An approval is answerable once its request is delivered: a client that
// answers on the spot (no round trip to wait for) is heard, not told
// that nothing waits while the run waits on until it times out.
func TestApprovalAnswerableWhenAsked(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}})
	sid := e.sid("local:ana")
	e.p.add(callTool("write", `{"text":"x"}`), say("done"))
	a := answering{recorder: newRecorder(), errs: make(chan error, 1), answer: func(req *beamclaw.ApprovalRequest) error {
		return e.m.Decide(t.Context(), sid, req.ID, testOrigin, beamclaw.Allow)
	}}
	_, _ = e.send(t, "local:ana", "go", func(in *beamclaw.Inbound) { in.Route = a })
	if err := <-a.errs; err != nil {
		t.Fatalf("the approval answered as it was asked: %v", err)
	}
	if ev := a.wait(t); ev.Text != "done" || tl.runs.Load() != 1 {
		t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
	}
}
