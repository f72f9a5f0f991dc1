package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func (h *home) sessions(args ...string) []protocol.SessionInfo {
	h.t.Helper()
	var list protocol.SessionList
	out := h.must(append([]string{"sessions", "list", "--json"}, args...)...).stdout
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		h.t.Fatalf("sessions list: %v: %s", err, out)
	}
	return list.Sessions
}

// TestSessionsArchiveResumeAcrossRestart: conversations idle past a TTL of
// one second are archived, not deleted; after a restart they can be
// listed, exported, resumed from the terminal UI (a chat UI's thread, by
// the same canonical user) and deleted.
func TestSessionsArchiveResumeAcrossRestart(t *testing.T) {
	r := newChatRig(t, rigOptions{core: "  session_ttl_seconds: 1\n  session_cleanup_interval_ms: 100\n"})
	r.h.env = append(r.h.env, "BEAMCLAW_USER=me")
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	c := r.sdkClient()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// A chat UI's conversation (its own thread), then a single message:
	// since this user's client sends whole conversations, a new thread too.
	if _, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "default", User: openai.String("anyone"),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage("trip: plan Lisbon")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "default", User: openai.String("anyone"),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("default: hello")}}); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 20*time.Second, "both sessions archived", func() bool {
		return len(r.h.sessions()) == 0 && len(r.h.sessions("--archived")) == 2
	})

	r.h.must("stop")
	r.start()
	var trip protocol.SessionInfo
	for _, s := range r.h.sessions("--archived") {
		if s.Archived.IsZero() || s.User != "me" {
			t.Errorf("after restart: %+v", s)
		}
		if strings.HasPrefix(s.Title, "trip:") {
			trip = s
		}
	}
	if trip.ID == "" {
		t.Fatal("the chat UI's thread is not listed")
	}
	md := filepath.Join(t.TempDir(), "trip.md")
	r.h.must("sessions", "export", trip.ID[len("session-"):][:10], "--format", "md", "-o", md)
	if b, err := os.ReadFile(md); err != nil || !strings.Contains(string(b), "plan Lisbon") || !strings.Contains(string(b), "## You") {
		t.Errorf("export: %v\n%s", err, b)
	}
	if out := r.h.must("sessions", "show", trip.ID).stdout; !strings.Contains(out, "echo: trip: plan Lisbon") {
		t.Errorf("show:\n%s", out)
	}

	// The terminal UI lists the user's sessions and resumes the thread.
	tm := startTerm(t, r.h.env, r.h.tuiCommand())
	tm.waitText("default · connected", 30*time.Second)
	tm.typeLine("/sessions")
	tm.waitText("trip: plan Lisbon", 10*time.Second)
	tm.waitText("default: hello", 10*time.Second)
	tm.typeLine("/resume " + trip.ID[len("session-"):][:8])
	tm.waitText("echo: trip: plan Lisbon", 10*time.Second)
	tm.typeLine("next stop Porto")
	tm.waitText("echo: next stop Porto", 30*time.Second)
	tm.keys("C-c")
	tm.waitExit(10 * time.Second)
	var d protocol.SessionDetail
	if err := json.Unmarshal([]byte(r.h.must("sessions", "show", trip.ID, "--json").stdout), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Messages) != 5 || !d.Session.Archived.IsZero() && d.Session.Updated.Before(trip.Updated) {
		t.Errorf("resumed thread: %d messages, %+v", len(d.Messages), d.Session)
	}

	r.h.must("sessions", "delete", "-y", trip.ID)
	for _, s := range r.h.sessions("--archived") {
		if s.ID == trip.ID {
			t.Error("deleted session still listed")
		}
	}
	if res := r.h.run("sessions", "show", trip.ID); res.code == 0 || !strings.Contains(res.stderr, "no such session") {
		t.Errorf("show of a deleted session: exit %d, %s", res.code, res.stderr)
	}
}
