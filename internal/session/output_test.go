package session

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// bigOutput is a tool output of n lines with a secret-shaped value.
func bigOutput(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "row %03d\n", i)
	}
	return b.String() + "token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"
}

// pagedEnv is an env whose tool results are paged past 100 bytes.
func pagedEnv(t *testing.T, path string, tools ...beamclaw.Tool) *env {
	return newEnv(t, envOpts{path: path, tools: tools, loop: func(lo *loop.Options) { lo.Paging = tool.Paging{Bytes: 100} }})
}

// A long tool output is written whole, scrubbed, in the step's own commit
// (a turn takes as many commits as one with a short output), and the
// tool message holds its view naming it. It outlives the daemon.
func TestOutputIsKeptWithItsStep(t *testing.T) {
	path := t.TempDir() + "/beamclaw.db"
	big, short := &echoTool{name: "big", output: bigOutput(40)}, &echoTool{name: "short", output: "fine"}
	e := pagedEnv(t, path, big, short)
	commits := map[string]uint64{}
	for _, name := range []string{"short", "big"} {
		rec, _ := e.send(t, "ana", "warm up")
		rec.wait(t)
		waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
		before := e.db.Commits()
		e.p.add(callTool(name, `{}`), say("done"))
		rec, _ = e.send(t, "ana", "run "+name)
		if ev := rec.wait(t); ev.Text != "done" {
			t.Fatalf("run %s: %+v", name, ev)
		}
		waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
		commits[name] = e.db.Commits() - before
	}
	if commits["big"] != commits["short"] {
		t.Errorf("a turn keeping an output took %d commits, one with a short output %d", commits["big"], commits["short"])
	}
	whole := strings.Replace(bigOutput(40), "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]", 1)
	h, err := e.m.History(e.sid("ana"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := h[len(h)-2].Content, tool.View(whole, 100, "out-1"); got != want {
		t.Errorf("tool message %q, want the view %q", got, want)
	}
	e.stop()
	e = pagedEnv(t, path, big, short)
	if got, ok, err := e.m.Output(e.sid("ana"), "out-1"); err != nil || !ok || got != whole {
		t.Errorf("after a restart out-1 is %q, %v, %v; want the whole scrubbed output", got, ok, err)
	}
	if _, ok, err := e.m.Output(e.sid("bo"), "out-1"); ok || err != nil {
		t.Errorf("another session read out-1 (%v)", err)
	}
	e.p.add(callTool("big", `{}`), say("done")) // the next output's handle is new
	rec, _ := e.send(t, "ana", "run big again")
	rec.wait(t)
	waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	outs, err := e.m.Outputs(e.sid("ana"))
	if err != nil || len(outs) != 2 || outs[0].Handle != "out-1" || outs[1].Handle != "out-2" || outs[1].Tool != "big" {
		t.Errorf("outputs after a second one: %+v (%v)", outs, err)
	}
}

// On a channel that acknowledges with the answer, the user message, the
// step and its output are one write.
func TestOutputIsKeptWithADeferredMessage(t *testing.T) {
	e := pagedEnv(t, "", &echoTool{name: "big", output: bigOutput(40)})
	e.p.add(callTool("big", `{}`), say("done"))
	rec, _ := e.send(t, "ana", "go", httpAck)
	ev := rec.wait(t)
	if outs, err := e.m.Outputs(ev.SessionID); err != nil || len(outs) != 1 || outs[0].Tool != "big" {
		t.Errorf("outputs %+v (%v)", outs, err)
	}
}

// Deleting a session deletes its outputs; a reset drops them too.
func TestOutputGoesWithItsSession(t *testing.T) {
	e := pagedEnv(t, "", &echoTool{name: "big", output: bigOutput(40)})
	for _, user := range []string{"ana", "bo"} {
		e.p.add(callTool("big", `{}`), say("done"))
		rec, _ := e.send(t, user, "go")
		rec.wait(t)
		waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	}
	if err := e.m.Delete(context.Background(), e.sid("ana")); err != nil {
		t.Fatal(err)
	}
	if outs, err := e.m.Outputs(e.sid("ana")); len(outs) != 0 || err != nil {
		t.Errorf("the deleted session's outputs are still kept: %d (%v)", len(outs), err)
	}
	if outs, _ := e.m.Outputs(e.sid("bo")); len(outs) != 1 {
		t.Fatalf("bo's outputs went with ana's session: %d left", len(outs))
	}
	if err := e.m.Reset(context.Background(), e.sid("bo")); err != nil {
		t.Fatal(err)
	}
	if outs, _ := e.m.Outputs(e.sid("bo")); len(outs) != 0 {
		t.Errorf("a reset kept %d outputs", len(outs))
	}
}

// A history rewritten whole (a compaction) keeps the outputs its tool
// messages still name, in either backend.
func TestCompactionKeepsTheOutputsItKeeps(t *testing.T) {
	e := newEnv(t, envOpts{})
	id := ID("ana", "default", "tui", false)
	out := func(n int) loop.Output {
		return loop.Output{Handle: fmt.Sprintf("out-%d", n), CallID: fmt.Sprintf("c%d", n), Tool: "bash", Content: strings.Repeat("x", n)}
	}
	toolMsg := func(n int) beamclaw.Message {
		return beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: fmt.Sprintf("c%d", n), Content: "view"}
	}
	for name, b := range map[string]backend{"bolt": e.m.store, "memory": newMemBackend()} {
		t.Run(name, func(t *testing.T) {
			err := b.apply(id, change{rec: record{UserID: "ana", AgentID: "default", NextSeq: 2}, created: true,
				msgs: []beamclaw.Message{toolMsg(1), toolMsg(2)}, outputs: []loop.Output{out(1), out(2)}})
			if err != nil {
				t.Fatal(err)
			}
			err = b.apply(id, change{rec: record{UserID: "ana", AgentID: "default", NextSeq: 4}, reset: true, from: 2,
				msgs: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "summary"}, toolMsg(2)}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.outputs(id)
			if diff := cmp.Diff([]loop.Output{out(2)}, got); diff != "" || err != nil {
				t.Errorf("outputs after the compaction (-want +got, %v):\n%s", err, diff)
			}
		})
	}
}
