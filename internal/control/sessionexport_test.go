package control

import (
	"net/http"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// A session downloads as its JSON detail or a Markdown transcript with
// roles, tool calls and their results, as an attachment named for it.
func TestSessionExport(t *testing.T) {
	l := newLive(t, &noteTool{name: "note"})
	l.model.then("note", `{"text":"buy figs"}`)
	l.model.then("", "Noted the figs.")
	id, ev := l.send(t, beamclaw.ChannelTUI, "local:ana", "tui:local:ana", "remember figs")
	ev.wait(t, beamclaw.EvFinal)
	sock, api := doors(t, Deps{Sessions: l.m})

	a := do(t, api, http.MethodGet, APIPrefix+"/sessions/"+id+"/export", apiToken, "")
	var d protocol.SessionDetail
	decode(t, a, &d)
	if d.Session.ID != id || len(d.Messages) != 4 || d.Messages[0].Content != "remember figs" {
		t.Errorf("JSON export: %+v", d)
	}
	if cd := a.header.Get("Content-Disposition"); cd != `attachment; filename=beamclaw-`+id+`.json` {
		t.Errorf("JSON export's Content-Disposition %q", cd)
	}
	a = do(t, sock, http.MethodGet, protocol.ControlSession+"/"+id+"/export?format=markdown", "", "")
	if a.status != http.StatusOK || !strings.HasPrefix(a.header.Get("Content-Type"), "text/markdown") ||
		a.header.Get("Content-Disposition") != `attachment; filename=beamclaw-`+id+`.md` {
		t.Fatalf("Markdown export: %d %v", a.status, a.header)
	}
	for _, want := range []string{"# remember figs", "## You\n\nremember figs", "> tool `note` {\"text\":\"buy figs\"}",
		"> result of `note`: noted", "## default\n\nNoted the figs."} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, a.body)
		}
	}
	wantError(t, do(t, api, http.MethodGet, APIPrefix+"/sessions/"+id+"/export?format=pdf", apiToken, ""),
		http.StatusBadRequest, `format "pdf": want json or markdown`)
	wantError(t, do(t, api, http.MethodGet, APIPrefix+"/sessions/session-nope/export", apiToken, ""),
		http.StatusNotFound, "no such session")
}

// A reset empties the history as the chat's /reset does; the session
// stays, and answers the next message with a fresh history.
func TestSessionReset(t *testing.T) {
	l := newLive(t)
	id, ev := l.send(t, beamclaw.ChannelTUI, "local:ana", "tui:local:ana", "first words")
	ev.wait(t, beamclaw.EvFinal)
	sock, api := doors(t, Deps{Sessions: l.m})

	var d protocol.SessionDetail
	decode(t, do(t, api, http.MethodPost, APIPrefix+"/sessions/"+id+"/reset", apiToken, ""), &d)
	if d.Session.ID != id || len(d.Messages) != 0 || d.Session.Messages != 0 {
		t.Errorf("after the reset: %+v", d)
	}
	if hist, err := l.m.History(id); err != nil || len(hist) != 0 {
		t.Errorf("the session's history after the reset: %v %v", hist, err)
	}
	_, ev = l.send(t, beamclaw.ChannelTUI, "local:ana", "tui:local:ana", "second words")
	ev.wait(t, beamclaw.EvFinal)
	decode(t, do(t, sock, http.MethodGet, protocol.ControlSession+"/"+id, "", ""), &d)
	if len(d.Messages) != 2 || d.Messages[0].Content != "second words" {
		t.Errorf("the next turn after the reset: %+v", d.Messages)
	}
	wantError(t, do(t, sock, http.MethodPost, protocol.ControlSession+"/session-nope/reset", "", ""),
		http.StatusNotFound, "no such session")
}
