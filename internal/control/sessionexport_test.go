package control

import (
	"context"
	"encoding/json"
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

// bigTool prints more than a page: the session keeps it whole.
type bigTool struct{}

func (bigTool) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: "big", Description: "prints a lot",
		Parameters: json.RawMessage(`{"type":"object"}`)}, MinAutonomy: beamclaw.ReadOnly, Risk: beamclaw.RiskLow}
}

func (bigTool) Execute(context.Context, beamclaw.Invocation) (string, error) { return bigPrint(), nil }

// bigPrint is what bigTool prints: 20,000 bytes of lines, some backticks.
func bigPrint() string { return strings.Repeat("row ```` of a long listing\n", 740) }

// An export holds the tool results the session kept whole, the history
// only their views; a show holds no outputs.
func TestSessionExportHoldsKeptOutputs(t *testing.T) {
	l := newLive(t, bigTool{})
	l.model.then("big", `{}`)
	l.model.then("", "Listed.")
	id, ev := l.send(t, beamclaw.ChannelTUI, "local:ana", "tui:local:ana", "list it")
	ev.wait(t, beamclaw.EvFinal)
	sock, api := doors(t, Deps{Sessions: l.m})

	var d protocol.SessionDetail
	decode(t, do(t, api, http.MethodGet, APIPrefix+"/sessions/"+id+"/export", apiToken, ""), &d)
	if len(d.Outputs) != 1 || d.Outputs[0].Content != bigPrint() || d.Outputs[0].ID != "out-1" || d.Outputs[0].Tool != "big" ||
		d.Outputs[0].Bytes != len(bigPrint()) || d.Outputs[0].ToolCallID != d.Messages[2].ToolCallID {
		t.Fatalf("the export's outputs: %d, messages %+v", len(d.Outputs), d.Messages)
	}
	if view := d.Messages[2].Content; len(view) > 16000 || !strings.Contains(view, `{"id":"out-1"`) {
		t.Errorf("the tool message is not the view naming out-1: %d bytes", len(view))
	}
	md := do(t, sock, http.MethodGet, protocol.ControlSession+"/"+id+"/export?format=markdown", "", "").body
	if want := "\n## Output out-1 of `big`, kept whole (19980 bytes)\n\n`````\n" + bigPrint() + "`````\n"; !strings.Contains(md, want) {
		t.Errorf("the transcript lacks the output in a fence longer than its backticks:\n%s", md[:min(len(md), 600)])
	}
	var show protocol.SessionDetail
	decode(t, do(t, sock, http.MethodGet, protocol.ControlSession+"/"+id, "", ""), &show)
	if len(show.Messages) != 4 || show.Outputs != nil {
		t.Errorf("a show holds %d messages and %d outputs", len(show.Messages), len(show.Outputs))
	}
}
