package e2e

import (
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
	daily := filepath.Join(r.h.dir, "agents", "default", "memory")
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
	pollUntil(t, 10*time.Second, "the event logged", func() bool {
		return strings.Contains(r.h.logs(), "maintenance_pre_expiry_flush")
	})
	time.Sleep(time.Second) // five more scans: the flush is not repeated
	if n := len(r.llm.Requests()); n != 2 {
		t.Errorf("%d model requests after the flush, want 2", n)
	}
	out := r.h.must("sessions", "list", "--json").stdout
	if !strings.Contains(out, `"messages": 2`) || strings.Contains(out, `"archived"`) {
		t.Errorf("the session after its pre-expiry flush:\n%s", out)
	}
	r.h.must("stop")
	r.start()
	time.Sleep(time.Second) // five scans of the restarted daemon
	if n := len(r.llm.Requests()); n != 2 {
		t.Errorf("%d model requests after a restart, want 2: the flush was repeated", n)
	}
}
