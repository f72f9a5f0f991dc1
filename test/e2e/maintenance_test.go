package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestMaintenancePreExpiryFlush: pre_expiry_minutes before the TTL would
// archive a session, its memory is flushed: the model is asked for the
// durable facts and they land in the agent's daily log, the event is
// logged, and the session itself is not touched (still active, history
// kept). It happens once, a restart of the daemon included.
func TestMaintenancePreExpiryFlush(t *testing.T) {
	r := newChatRig(t, rigOptions{core: "  session_ttl_seconds: 61\n" +
		"  maintenance:\n    enabled: true\n    scan_interval_ms: 200\n    pre_expiry_minutes: 1\n"})
	r.llm.SetDefault(fakellm.Rules)
	r.llm.Script(fakellm.Reply{Text: "Noted."}, fakellm.Reply{Text: "- The user's cat is called Miso"})
	r.start()
	r.chat("ana", "my cat is called Miso")
	daily := filepath.Join(r.h.dir, "people", "default", "*", "memory") // ana's own (memory_scope: user)
	pollUntil(t, 30*time.Second, "the flushed fact in the daily log", func() bool {
		files, _ := filepath.Glob(filepath.Join(daily, "*.md"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "cat is called Miso") {
				return true
			}
		}
		return false
	})
	reqs := r.llm.Requests()
	if len(reqs) != 2 || !strings.HasPrefix(reqs[1].Messages[0].Content, "The conversation below is about to be compacted") ||
		!strings.Contains(reqs[1].Messages[1].Content, "my cat is called Miso") {
		t.Fatalf("model requests: %+v", reqs)
	}
	flushes := func() int { return strings.Count(r.h.logs(), "maintenance_pre_expiry_flush") }
	pollUntil(t, 10*time.Second, "the event logged", func() bool { return flushes() == 1 })
	out := r.h.must("sessions", "list", "--json").stdout
	if !strings.Contains(out, `"messages": 2`) || strings.Contains(out, `"archived"`) {
		t.Errorf("the session after its pre-expiry flush:\n%s", out)
	}
	// Restarted, the daemon must not flush ana's session again. Every scan
	// looks at every session, so once bo's flush is logged and then cy's
	// (cy chats after bo's flush: a later scan), a whole scan has looked at
	// ana's session.
	r.h.must("stop")
	r.start()
	for i, user := range []string{"bo", "cy"} {
		r.chat(user, "hello from "+user)
		pollUntil(t, 30*time.Second, user+"'s flush", func() bool { return flushes() == 2+i })
	}
	anaFlushes := 0
	for _, req := range r.llm.Requests() {
		if strings.HasPrefix(req.Messages[0].Content, "The conversation below is about to be compacted") &&
			strings.Contains(req.Messages[1].Content, "my cat is called Miso") {
			anaFlushes++
		}
	}
	if n := len(r.llm.Requests()); n != 6 || anaFlushes != 1 {
		t.Errorf("%d model requests, %d flushes of ana's session; want 6 (a chat and a flush each for ana, bo, cy) and 1", n, anaFlushes)
	}
}

// TestHardening2MaintenanceSkipsABusySession (issue 23, item 11): ana's
// session waits on an approval nobody answers; the scan leaves it and
// flushes everyone else's memory before their expiry (once the scan
// waited on ana's queue and the others were archived unflushed).
func TestHardening2MaintenanceSkipsABusySession(t *testing.T) {
	r := newChatRig(t, rigOptions{core: "  session_ttl_seconds: 61\n  approval_timeout_seconds: 600\n" +
		"  maintenance:\n    enabled: true\n    scan_interval_ms: 200\n    pre_expiry_minutes: 1\n"})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	conn := r.dial("ana")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := conn.Send(ctx, `call tool write_file {"path":"x.txt","content":"x"}`); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 10*time.Second, "ana's approval asked", func() bool { return strings.Contains(r.h.logs(), "approval_requested") })
	users := []string{"bo", "cy", "dee", "eve", "fay", "gus"}
	for _, u := range users {
		r.chat(u, "remember "+u)
	}
	flushes := func() int { return strings.Count(r.h.logs(), "maintenance_pre_expiry_flush") }
	pollUntil(t, 30*time.Second, "everyone's flush but ana's", func() bool { return flushes() >= len(users) })
}
