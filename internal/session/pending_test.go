package session

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// The approvals waiting in live sessions are listed with whose they are
// and where they were asked; the operator's DecideLocal answers one asked
// on the terminal, and is refused one asked of a person elsewhere, which
// stays theirs to answer.
func TestPendingAndDecideLocal(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}})
	e.p.add(callTool("write", `{"text":"local"}`))
	local, _ := e.send(t, "local:ana", "go")
	waitUntil(t, "the terminal's approval", func() bool { return len(e.m.Pending()) == 1 })
	e.p.add(callTool("write", `{"text":"remote"}`))
	remote, _ := e.send(t, "ws:erin", "go", func(in *beamclaw.Inbound) { in.Channel, in.Origin = beamclaw.ChannelWS, "ws:ws:erin" })
	waitUntil(t, "both approvals", func() bool { return len(e.m.Pending()) == 2 })

	ps := e.m.Pending()
	if p := ps[0]; p.User != "local:ana" || p.Agent != "default" || p.Channel != beamclaw.ChannelTUI || !p.Local ||
		p.Request.ToolName != "write" || p.Request.Args != `{"text":"local"}` || p.Asked.IsZero() || p.Session != e.sid("local:ana") {
		t.Errorf("the terminal's approval: %+v", p)
	}
	if p := ps[1]; p.User != "ws:erin" || p.Channel != beamclaw.ChannelWS || p.Local {
		t.Errorf("erin's approval: %+v", p)
	}
	err := e.m.DecideLocal(t.Context(), ps[1].Session, ps[1].Request.ID, beamclaw.Allow)
	if beamclaw.KindOf(err) != beamclaw.KindForbidden {
		t.Errorf("the operator answering erin's approval: %v, want forbidden", err)
	}
	if err := e.m.DecideLocal(t.Context(), ps[0].Session, "approval-nope", beamclaw.Allow); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("an unknown approval: %v, want not found", err)
	}
	e.p.add(say("local done")) // each run asks the model again once answered
	if err := e.m.DecideLocal(t.Context(), ps[0].Session, ps[0].Request.ID, beamclaw.Allow); err != nil {
		t.Fatal(err)
	}
	if ev := local.wait(t); ev.Text != "local done" || tl.runs.Load() != 1 {
		t.Fatalf("the terminal's run: %q after %d runs", ev.Text, tl.runs.Load())
	}
	if left := e.m.Pending(); len(left) != 1 || left[0].Request.ID != ps[1].Request.ID {
		t.Fatalf("left waiting: %+v", left)
	}
	e.p.add(say("remote done"))
	if err := e.m.Decide(t.Context(), ps[1].Session, ps[1].Request.ID, "ws:ws:erin", beamclaw.Deny); err != nil {
		t.Fatalf("erin answering her own approval: %v", err)
	}
	if ev := remote.wait(t); ev.Text != "remote done" || tl.runs.Load() != 1 {
		t.Fatalf("erin's run: %q after %d runs", ev.Text, tl.runs.Load())
	}
}
