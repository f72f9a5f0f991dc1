package control

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// The approvals waiting across sessions are listed with whose they are,
// where they were asked and the call's scrubbed arguments; the operator
// holding the admin API answers the one asked on the terminal, and is
// refused the one asked of another person on /ws, which stays hers.
func TestApprovalsAcrossSessions(t *testing.T) {
	shell := &noteTool{name: "shell", ask: true}
	l := newLive(t, shell)
	long := `{"text":"echo hunter2 && ` + strings.Repeat("x", 300) + `"}`
	l.model.then("shell", long)
	local, localEv := l.send(t, beamclaw.ChannelTUI, "local:ana", "tui:local:ana", "clean up")
	localEv.wait(t, beamclaw.EvApprovalRequest)
	l.model.then("shell", `{"text":"rm -rf ~"}`)
	remote, remoteEv := l.send(t, beamclaw.ChannelWS, "ws:erin", "ws:ws:erin", "tidy my home")
	remoteEv.wait(t, beamclaw.EvApprovalRequest)
	sock, api := doors(t, Deps{Sessions: l.m, Scrub: func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") }})

	if a := do(t, api, http.MethodGet, APIPrefix+"/approvals", "", ""); a.status != http.StatusUnauthorized {
		t.Errorf("the approvals without the token: %d %s", a.status, a.body)
	}
	var list protocol.ApprovalList
	decode(t, do(t, api, http.MethodGet, APIPrefix+"/approvals", apiToken, ""), &list)
	if len(list.Approvals) != 2 {
		t.Fatalf("approvals: %+v", list)
	}
	// Listed oldest first; the two were asked moments apart, and an
	// approval's time is taken when its run starts waiting, after the
	// request reached the route: pick each by its session.
	mine, hers := list.Approvals[0], list.Approvals[1]
	if mine.Session != local {
		mine, hers = hers, mine
	}
	if mine.Session != local || mine.Agent != "default" || mine.User != "local:ana" || mine.Channel != "tui" || mine.Tool != "shell" ||
		!mine.Answerable || mine.Asked.IsZero() || mine.ID == "" || mine.Risk != "high" {
		t.Errorf("the terminal's approval: %+v", mine)
	}
	if !strings.HasPrefix(mine.Args, `{"text":"echo [REDACTED] && xxx`) || strings.Contains(mine.Args, "hunter2") ||
		utf8.RuneCountInString(mine.Args) != argsShown || !strings.HasSuffix(mine.Args, "…") {
		t.Errorf("the arguments shown: %q, want scrubbed and cut to %d", mine.Args, argsShown)
	}
	if hers.Session != remote || hers.User != "ws:erin" || hers.Channel != "ws" || hers.Answerable || hers.Args != `{"text":"rm -rf ~"}` {
		t.Errorf("erin's approval: %+v", hers)
	}

	answer := func(id, session, decision string) answer {
		return do(t, api, http.MethodPost, APIPrefix+"/approvals/"+id, apiToken,
			`{"session":"`+session+`","decision":"`+decision+`"}`)
	}
	wantError(t, answer(hers.ID, remote, "yes"), http.StatusForbidden, "asked on ws: only the person asked can answer it")
	wantError(t, answer("approval-nope", local, "yes"), http.StatusNotFound, "no such approval")
	wantError(t, answer(mine.ID, remote, "yes"), http.StatusNotFound, "no such approval")
	wantError(t, answer(mine.ID, local, "maybe"), http.StatusBadRequest, `decision "maybe": want yes, no or always`)
	wantError(t, answer(mine.ID, "", "yes"), http.StatusBadRequest, "session is required")
	wantError(t, do(t, api, http.MethodPost, APIPrefix+"/approvals/"+mine.ID, apiToken, `{"nope":1}`), http.StatusBadRequest, "invalid JSON body")
	if shell.runs.Load() != 0 {
		t.Fatal("a refused answer ran the tool")
	}

	l.model.then("", "cleaned")
	var done protocol.ApprovalDecided
	decode(t, do(t, sock, http.MethodPost, protocol.ControlApprovals+"/"+mine.ID, "", `{"session":"`+local+`","decision":"yes"}`), &done)
	if done != (protocol.ApprovalDecided{ID: mine.ID, Session: local, Decision: "allow"}) {
		t.Errorf("answered: %+v", done)
	}
	if ev := localEv.wait(t, beamclaw.EvFinal); ev.Text != "cleaned" || shell.runs.Load() != 1 {
		t.Errorf("the terminal's run after yes: %q, %d runs", ev.Text, shell.runs.Load())
	}
	decode(t, do(t, sock, http.MethodGet, protocol.ControlApprovals, "", ""), &list)
	if len(list.Approvals) != 1 || list.Approvals[0].ID != hers.ID {
		t.Fatalf("left waiting: %+v", list)
	}
	l.model.then("", "not tidied")
	if err := l.m.Decide(t.Context(), remote, hers.ID, "ws:ws:erin", beamclaw.Deny); err != nil {
		t.Fatalf("erin answering her own approval: %v", err)
	}
	if ev := remoteEv.wait(t, beamclaw.EvFinal); ev.Text != "not tidied" || shell.runs.Load() != 1 {
		t.Errorf("erin's run after her no: %q, %d runs", ev.Text, shell.runs.Load())
	}
}
