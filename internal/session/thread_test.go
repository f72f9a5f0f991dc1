package session

import (
	"context"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// turn sends content with the client's copy msgs (keyed by the joined
// contents, as an edge would digest them) and marks the answered turn.
func (e *env) turn(t *testing.T, user string, msgs []beamclaw.Message, content string) (answer, sid string) {
	t.Helper()
	key := func(ms []beamclaw.Message) string {
		var b strings.Builder
		for _, m := range ms {
			b.WriteString(string(m.Role) + ":" + m.Content + "|")
		}
		return b.String()
	}
	rec, runID := e.send(t, user, content, func(in *beamclaw.Inbound) {
		in.Transcript = &beamclaw.Transcript{Messages: msgs, Key: key(msgs)}
	})
	ev := rec.wait(t)
	if ev.Type != beamclaw.EvFinal {
		t.Fatalf("turn %q: %+v", content, ev)
	}
	next := append(append(append([]beamclaw.Message(nil), msgs...), beamclaw.Message{Role: beamclaw.RoleUser, Content: content}),
		beamclaw.Message{Role: beamclaw.RoleAssistant, Content: ev.Text})
	if err := e.m.MarkTurn(context.Background(), ev.SessionID, runID, key(next)); err != nil {
		t.Fatal(err)
	}
	return ev.Text, ev.SessionID
}

func TestThreadsKeepConversationsApart(t *testing.T) {
	e := newEnv(t, envOpts{})
	u := func(s string) beamclaw.Message { return beamclaw.Message{Role: beamclaw.RoleUser, Content: s} }
	a := func(s string) beamclaw.Message { return beamclaw.Message{Role: beamclaw.RoleAssistant, Content: s} }
	sys := beamclaw.Message{Role: beamclaw.RoleSystem, Content: "You are terse."}

	// A curl-style client: single messages go to the default session.
	e.turn(t, "ann", nil, "remember: cobalt")
	_, def := e.turn(t, "ann", nil, "what colour?")
	if def != e.sid("ann") {
		t.Fatalf("single messages went to %s, not the default session", def)
	}

	// Two chats of the same user, whole conversations each time.
	a1, chatA := e.turn(t, "ann", []beamclaw.Message{sys}, "chat A first")
	b1, chatB := e.turn(t, "ann", nil, "chat B first") // ann's client now sends whole conversations: a new thread
	if chatA == chatB || chatA == def || chatB == def {
		t.Fatalf("sessions A %s B %s default %s are not apart", chatA, chatB, def)
	}
	a2, sidA2 := e.turn(t, "ann", []beamclaw.Message{sys, u("chat A first"), a(a1)}, "chat A second")
	_, sidB2 := e.turn(t, "ann", []beamclaw.Message{u("chat B first"), a(b1)}, "chat B second")
	if sidA2 != chatA || sidB2 != chatB {
		t.Fatalf("continuations went to %s / %s, want %s / %s", sidA2, sidB2, chatA, chatB)
	}
	for _, req := range e.p.requests() {
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content + "\n")
		}
		s := all.String()
		if strings.Contains(s, "chat A") && (strings.Contains(s, "chat B") || strings.Contains(s, "cobalt")) ||
			strings.Contains(s, "chat B") && strings.Contains(s, "cobalt") {
			t.Errorf("a prompt mixes conversations:\n%s", s)
		}
	}
	if last := e.p.requests()[len(e.p.requests())-2]; last.Messages[0].Content != sys.Content {
		t.Errorf("the client's system message is not in chat A's prompt: %+v", last.Messages)
	}

	// Regenerate chat A's second answer: the same copy sent again replaces
	// the answer instead of storing the turn twice.
	e.turn(t, "ann", []beamclaw.Message{sys, u("chat A first"), a(a1)}, "chat A second")
	hist, err := e.m.History(chatA)
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(hist); len(got) != 5 || got[3] != "user:chat A second" {
		t.Errorf("after a regenerate chat A holds %v", got)
	}
	_ = a2

	// The next turn continues from the regenerated answer.
	e.turn(t, "ann", []beamclaw.Message{sys, u("chat A first"), a(a1), u("chat A second"), a(a2)}, "chat A third")
	if hist, _ := e.m.History(chatA); len(hist) != 7 {
		t.Errorf("chat A after a third turn holds %d messages, want 7", len(hist))
	}
}

func TestNamedThreadAppendsSingleMessages(t *testing.T) {
	e := newEnv(t, envOpts{})
	named := func(in *beamclaw.Inbound) {
		in.Thread = "n-work"
		in.Transcript = &beamclaw.Transcript{Key: "empty"}
	}
	r1, _ := e.send(t, "bo", "first", named)
	r1.wait(t)
	r2, _ := e.send(t, "bo", "second", named)
	ev := r2.wait(t)
	hist, err := e.m.History(ev.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 4 || ev.SessionID == e.sid("bo") {
		t.Errorf("named session %s holds %v", ev.SessionID, roles(hist))
	}
}

func TestResumeOnlyOwnSessions(t *testing.T) {
	e := newEnv(t, envOpts{})
	r, _ := e.send(t, "ann", "hello")
	r.wait(t)
	own := e.sid("ann")
	rec := newRecorder()
	_, err := e.m.Send(context.Background(), beamclaw.Inbound{Channel: "tui", UserID: "eve", AgentID: "default",
		Content: "let me in", Route: rec, Session: own})
	if beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Fatalf("another user's resume: %v, want not found", err)
	}
	r, _ = e.send(t, "ann", "I am back", func(in *beamclaw.Inbound) { in.Session = own })
	if ev := r.wait(t); ev.SessionID != own {
		t.Errorf("resume went to %s", ev.SessionID)
	}
	if hist, _ := e.m.History(own); len(hist) != 4 {
		t.Errorf("resumed session holds %d messages", len(hist))
	}
	sums, err := e.m.UserSessions("ann", "default")
	if err != nil || len(sums) != 1 || sums[0].Title != "hello" {
		t.Errorf("UserSessions: %+v %v", sums, err)
	}
}
