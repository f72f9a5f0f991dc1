package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

func sendFrame(t *testing.T, conn *client.Conn, f protocol.ClientFrame) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.SendFrame(ctx, f); err != nil {
		t.Fatal(err)
	}
}

// users runs beamclaw users list --json.
func (h *home) users() protocol.UserList {
	h.t.Helper()
	var l protocol.UserList
	out := h.must("users", "list", "--json").stdout
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		h.t.Fatalf("users list: %v: %s", err, out)
	}
	return l
}

// TestLinkTelegramAndWS (issue 24, item 2): erin's /ws account shows a
// link code and her Telegram account types it; from then on both are one
// person: one session history, one memory. A wrong code links nothing.
// Unlinking splits them again.
func TestLinkTelegramAndWS(t *testing.T) {
	r := newTGRig(t, tgOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.pair(tgAna)
	c := client.NewTCP("http://"+r.addr, "")
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := c.Dial(ctx, "default", client.DialOptions{User: "erin"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	sendRun(t, conn, "ws says: my badge colour is vermilion", nil)
	sendRun(t, conn, `call tool workspace_memory {"action":"remember","key":"badge","content":"Erin's badge number is 4471"}`, nil)

	r.tg.SendText(tgAna.ID, tgAna, "tg before the link: my kiwi is named Pip")
	r.waitLLM("the pre-link Telegram turn", func(reqs []fakellm.Request) bool {
		return tgCountUser(reqs, "tg before the link: my kiwi is named Pip") > 0
	})

	// A wrong code links nothing.
	r.tg.SendText(tgAna.ID, tgAna, "/link ABCDEFGH")
	r.waitMessage(tgAna.ID, "the refusal of a wrong code", func(m faketelegram.Message) bool {
		return strings.Contains(m.Text, "not valid")
	})
	for _, u := range r.h.users().Users {
		if len(u.Accounts) > 0 {
			t.Fatalf("a wrong code linked %s to %v", u.ID, u.Accounts)
		}
	}

	sendFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameLink})
	code := frameOf(t, conn, protocol.FrameLinkCode).Text
	r.tg.SendText(tgAna.ID, tgAna, "/link "+code)
	r.waitMessage(tgAna.ID, "the link confirmed", func(m faketelegram.Message) bool { return strings.Contains(m.Text, "Linked") })
	if got := r.h.must("users", "show", "tg:4242").stdout; !strings.Contains(got, "user      ws:erin") || !strings.Contains(got, "linked    tg:4242") {
		t.Errorf("users show tg:4242 after the link:\n%s", got)
	}
	for _, u := range r.h.users().Users {
		if u.ID == "tg:4242" || (u.ID == "ws:erin" && u.Sessions != 2) {
			t.Errorf("users list after the link: %+v (want erin once, with her Telegram session too)", u)
		}
	}

	// The person's sessions include the linked account's own, and resume
	// opens it.
	sendFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameHello, Agent: "default", User: "erin"})
	frameOf(t, conn, protocol.FrameReady)
	sendFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameSessions})
	var tgSession string
	for _, s := range frameOf(t, conn, protocol.FrameSessions).Sessions {
		if s.User == "tg:4242" {
			tgSession = s.ID
		}
	}
	if tgSession == "" {
		t.Fatal("erin's sessions lack her linked Telegram account's own")
	}
	sendFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameResume, Session: tgSession})
	if h := frameOf(t, conn, protocol.FrameReady).History; len(h) == 0 || !strings.Contains(h[0].Content, "kiwi") {
		t.Errorf("resumed the Telegram account's session: %+v", h)
	}

	before := len(r.llm.Requests())
	r.tg.SendText(tgAna.ID, tgAna, "telegram says: what colour is my badge?")
	reqs := r.waitLLM("the Telegram turn", func(reqs []fakellm.Request) bool {
		return tgCountUser(reqs[before:], "telegram says: what colour is my badge?") > 0
	})
	if conv := strings.Join(llmConversation(reqs[len(reqs)-1]), "\n"); !strings.Contains(conv, "ws says: my badge colour is vermilion") {
		t.Errorf("the linked Telegram turn does not continue erin's /ws session:\n%s", conv)
	}
	if res := r.tgToolResult(`call tool workspace_memory {"action":"recall","query":"badge number"}`).Messages; !strings.Contains(lastContent(res), "4471") {
		t.Errorf("the linked Telegram account does not share erin's memory: %q", lastContent(res))
	}

	r.h.must("users", "unlink", "tg:4242")
	last := r.tgToolResult(`call tool workspace_memory {"action":"recall","query":"badge number"}`)
	if res := lastContent(last.Messages); strings.Contains(res, "4471") {
		t.Errorf("after unlink Telegram still reads erin's memory: %q", res)
	}
	if conv := strings.Join(llmConversation(last), "\n"); strings.Contains(conv, "vermilion") || !strings.Contains(conv, "kiwi") {
		t.Errorf("after unlink Telegram must continue its own session again:\n%s", conv)
	}
}

// TestSessionsBelongToTheirPerson (issue 24, item 4): two HTTP users who
// name the same X-Beamclaw-Session get two conversations; with
// BEAMCLAW_USER and per-channel sessions a TCP /ws client can neither list
// nor resume the terminal's session until it is linked to the terminal.
func TestSessionsBelongToTheirPerson(t *testing.T) {
	t.Run("named sessions", func(t *testing.T) {
		r := newChatRig(t, rigOptions{})
		r.llm.SetDefault(fakellm.Rules)
		r.start()
		// named sends content as user in the session "work", named by the
		// header or, with inBody, by metadata.session.
		named := func(user, content string, inBody bool) fakellm.Request {
			t.Helper()
			msg := map[string]any{"model": "default", "user": user,
				"messages": []map[string]string{{"role": "user", "content": content}}}
			if inBody {
				msg["metadata"] = map[string]string{"session": "work"}
			}
			body, _ := json.Marshal(msg)
			req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+"/v1/chat/completions", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if !inBody {
				req.Header.Set("X-Beamclaw-Session", "work")
			}
			resp, err := r.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: status %d", user, resp.StatusCode)
			}
			return llmLast(t, r.llm)
		}
		named("erin", "erin's plan: the heron project", false)
		for _, inBody := range []bool{false, true} {
			lee := named("lee", "lee's plan?", inBody)
			if conv := strings.Join(llmConversation(lee), "\n"); strings.Contains(conv, "heron") {
				t.Errorf("lee's session \"work\" (metadata.session: %t) carries erin's:\n%s", inBody, conv)
			}
		}
		if conv := strings.Join(llmConversation(named("erin", "and mine?", true)), "\n"); !strings.Contains(conv, "heron") {
			t.Errorf("erin's metadata.session \"work\" is not her header's \"work\":\n%s", conv)
		}
		if n := len(r.h.sessions()); n != 2 {
			t.Errorf("%d sessions, want one \"work\" each for erin and lee", n)
		}
	})
	t.Run("terminal", func(t *testing.T) {
		r := newChatRig(t, rigOptions{core: "  session_sharing: per_channel\n"})
		r.h.env = append(r.h.env, "BEAMCLAW_USER=owner")
		r.llm.SetDefault(fakellm.Rules)
		r.start()
		r.h.must("chat", "-m", "terminal: the vault code is 1234")
		var tui protocol.SessionInfo
		for _, s := range r.h.sessions() {
			if s.Channel == "tui" {
				tui = s
			}
		}
		if tui.ID == "" {
			t.Fatalf("no terminal session: %+v", r.h.sessions())
		}
		conn := r.dial("stranger")
		sendRun(t, conn, "hi", nil)
		sendFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameSessions})
		for _, s := range frameOf(t, conn, protocol.FrameSessions).Sessions {
			if s.ID == tui.ID {
				t.Errorf("an unlinked /ws client lists the terminal's session")
			}
		}
		sendFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameResume, Session: tui.ID})
		if f := frameOf(t, conn, protocol.FrameError); f.Code != protocol.CodeNotFound {
			t.Errorf("resume of the terminal's session: %+v", f)
		}

		out := r.h.must("users", "link").stdout
		code := strings.Fields(strings.SplitN(out, ": ", 2)[1])[0]
		sendFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameLink, Code: code})
		if f := frameOf(t, conn, protocol.FrameLinked); f.User != "local:owner" {
			t.Errorf("linked: %+v", f)
		}
		sendFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameHello, Agent: "default", User: "stranger"})
		frameOf(t, conn, protocol.FrameReady)
		sendFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameResume, Session: tui.ID})
		ready := frameOf(t, conn, protocol.FrameReady)
		if ready.SessionID != tui.ID || len(ready.History) == 0 || !strings.Contains(ready.History[0].Content, "vault code") {
			t.Errorf("the linked /ws client resumes the terminal's session: %+v", ready)
		}
	})
}

// tgToolResult sends text from ana (a "call tool" line) and returns the
// provider request that carries the tool's result: its last message.
func (r *tgRig) tgToolResult(text string) fakellm.Request {
	r.t.Helper()
	before := len(r.llm.Requests())
	r.tg.SendText(tgAna.ID, tgAna, text)
	var found fakellm.Request
	r.waitLLM("the result of "+text, func(reqs []fakellm.Request) bool {
		for _, q := range reqs[before:] {
			if n := len(q.Messages); n > 0 && q.Messages[n-1].Role == "tool" {
				found = q
				return true
			}
		}
		return false
	})
	return found
}

func lastContent(msgs []fakellm.Message) string {
	if len(msgs) == 0 {
		return ""
	}
	return msgs[len(msgs)-1].Content
}
