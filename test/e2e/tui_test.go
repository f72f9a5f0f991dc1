package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

const tuiCore = "  autonomy_level: supervised\n  channel_autonomy: {tui: supervised}\n"

// TestTUIAgainstDaemon uses `beamclaw tui` as a person would, in tmux,
// against a running daemon on the fake provider.
func TestTUIAgainstDaemon(t *testing.T) {
	srv, h, tm := tuiOnDaemon(t, fakellm.Rules)

	tm.typeLine("hello tui")
	tm.waitText("echo: hello tui", 30*time.Second)

	tm.typeLine(`call tool bash {"script":"echo tui-ok"}`)
	tm.waitText("Approve bash? [y] allow once · [a] always · [n] deny", 30*time.Second)
	tm.keys("a")
	s := tm.waitText("✓ bash: tui-ok", 30*time.Second)
	if !strings.Contains(s, "Always allowed: bash") {
		t.Errorf("no line says the approval was given; screen:\n%s", s)
	}
	tm.waitText("tool bash said: tui-ok", 30*time.Second)
	req, ok := mcpRequestFor(srv, `call tool bash {"script":"echo tui-ok"}`)
	if msg, found := mcpToolMessage(req); !ok || !found || !strings.HasPrefix(msg.Content, "tui-ok\n") {
		t.Errorf("the bash result did not reach the provider: %+v", msg)
	}
	// "always" covers the same call for the rest of the session: it runs
	// again with no second prompt.
	tm.typeLine(`call tool bash {"script":"echo tui-ok"}`)
	s = tm.waitFor("the same call to run again without a prompt", 30*time.Second, func(s string) bool {
		return strings.Count(s, "✓ bash: tui-ok") == 2 && strings.Count(s, "tool bash said: tui-ok") == 2
	})
	if n := strings.Count(s, "Approval needed"); n != 1 {
		t.Errorf("%d approval prompts after an always, want 1; screen:\n%s", n, s)
	}

	tm.typeLine("/context")
	tm.waitFor("the context gauge", 30*time.Second, func(s string) bool {
		return strings.Contains(s, "Context") && strings.Contains(s, "tokens")
	})

	tm.typeLine("/new")
	s = tm.waitText("New session: the history is cleared.", 30*time.Second)
	for _, gone := range []string{"echo: hello tui", "tui-ok", "tokens"} {
		if strings.Contains(s, gone) {
			t.Errorf("/new left %q on screen:\n%s", gone, s)
		}
	}
	tm.typeLine("after reset")
	tm.waitText("echo: after reset", 30*time.Second)
	if req, _ := mcpRequestFor(srv, "after reset"); len(tuiUserMessages(req)) != 1 {
		t.Errorf("after /new the provider still got earlier turns: %v", tuiUserMessages(req))
	}

	tm.keys("C-c")
	if st := tm.waitExit(15 * time.Second); st != "0" {
		t.Errorf("beamclaw tui exited with status %s after Ctrl-C", st)
	}
	if _, ok := h.status(); !ok {
		t.Error("the daemon stopped when the TUI quit")
	}
}

// TestTUIWithoutDaemonRunsInProcess runs `beamclaw tui` on a home where
// no daemon runs: it starts the runtime in-process and answers.
func TestTUIWithoutDaemonRunsInProcess(t *testing.T) {
	srv := fakellm.New(t)
	h := newHome(t, fakeLLMHomeConfig(srv, "", ""))
	if _, ok := h.status(); ok {
		t.Fatal("a daemon runs before the test started one")
	}
	tm := startTerm(t, h.env, h.tuiCommand())
	tm.waitText("default · connected", 60*time.Second)
	tm.typeLine("no daemon here")
	tm.waitText("echo: no daemon here", 30*time.Second)
	if req, ok := mcpRequestFor(srv, "no daemon here"); !ok || req.Model != "fake-model" {
		t.Errorf("the provider got no request for the message: %+v", req)
	}
	tm.keys("C-c")
	if st := tm.waitExit(30 * time.Second); st != "0" {
		t.Errorf("beamclaw tui exited with status %s after Ctrl-C", st)
	}
	if _, ok := h.status(); ok {
		t.Error("the in-process runtime outlived the TUI")
	}
}

func tuiUserMessages(req fakellm.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

// TestTUIReconnectsAfterDaemonRestart: a lost daemon shows a visible
// reconnecting status; once a daemon is back the TUI reconnects and
// shows the session's stored history.
func TestTUIReconnectsAfterDaemonRestart(t *testing.T) {
	srv, h, tm := tuiOnDaemon(t, nil)
	tm.typeLine("remember me")
	tm.waitText("echo: remember me", 30*time.Second)

	h.must("stop")
	tm.waitText("reconnecting…", 30*time.Second)
	h.start()
	s := tm.waitText("default · connected", 60*time.Second)
	if !strings.Contains(s, "echo: remember me") {
		t.Errorf("after reconnecting the history is not shown; screen:\n%s", s)
	}
	tm.typeLine("still here")
	tm.waitText("echo: still here", 30*time.Second)
	if req, _ := mcpRequestFor(srv, "still here"); len(tuiUserMessages(req)) != 2 {
		t.Errorf("after the restart the provider got user turns %q, want the stored one and the new one", tuiUserMessages(req))
	}
	tm.keys("C-c")
	if st := tm.waitExit(15 * time.Second); st != "0" {
		t.Errorf("beamclaw tui exited with status %s after Ctrl-C", st)
	}
}

// TestTUIApprovalOutlivesQuit (issue 24, item 3), as the issue tried it:
// in `beamclaw tui` ask for write_file, quit, reopen: the approval is
// shown again on attach, a message typed meanwhile says what it waits on,
// and /yes runs the tool once, then the message.
func TestTUIApprovalOutlivesQuit(t *testing.T) {
	srv, h, tm := tuiOnDaemon(t, fakellm.Rules)
	tm.typeLine(`call tool write_file {"path":"tui-once.txt","content":"once"}`)
	tm.waitText("Approve write_file? [y] allow once", 30*time.Second)
	tm.keys("C-c")
	if st := tm.waitExit(15 * time.Second); st != "0" {
		t.Fatalf("beamclaw tui exited with status %s after Ctrl-C", st)
	}

	tm = startTerm(t, h.env, h.tuiCommand())
	tm.waitText("Approve write_file? [y] allow once", 30*time.Second)
	tm.typeLine("then this, please") // not y, a or n: those answer the approval at once
	tm.waitText("waits for your answer to the approval asked earlier (write_file)", 30*time.Second)
	tm.typeLine("/yes")
	tm.waitText("echo: then this, please", 30*time.Second)
	b, err := os.ReadFile(filepath.Join(h.dir, "agents", "default", "tui-once.txt"))
	if err != nil || string(b) != "once" {
		t.Errorf("the approved tool's file: %q %v", b, err)
	}
	reqs := srv.Requests()
	if res := llmToolResults(reqs[len(reqs)-1]); len(res) != 1 {
		t.Errorf("the conversation holds %d tool results, want the one write_file run: %q", len(res), res)
	}
	tm.keys("C-c")
	if st := tm.waitExit(15 * time.Second); st != "0" {
		t.Errorf("beamclaw tui exited with status %s after Ctrl-C", st)
	}
}

// tuiOnDaemon starts a daemon on a fresh fake provider (answering with
// respond; nil: echo) and `beamclaw tui` against it, connected.
func tuiOnDaemon(t *testing.T, respond fakellm.Responder) (*fakellm.Server, *home, *term) {
	t.Helper()
	srv := fakellm.New(t)
	if respond != nil {
		srv.SetDefault(respond)
	}
	h := newHome(t, fakeLLMHomeConfig(srv, tuiCore, ""))
	h.start()
	tm := startTerm(t, h.env, h.tuiCommand())
	tm.waitText("default · connected", 30*time.Second)
	return srv, h, tm
}
