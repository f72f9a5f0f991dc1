package e2e

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestReservedKeysWarned: keys of a subsystem that does not run yet are
// accepted, and config check, doctor and start each name them.
func TestReservedKeysWarned(t *testing.T) {
	r := newChatRig(t, rigOptions{extra: "scheduler:\n  enabled: true\n  max_errors: 3\n"})
	want := []string{"scheduler.enabled does nothing", "scheduler.max_errors does nothing"}
	check := r.h.must("config", "check")
	doctor := r.h.run("doctor")
	start := r.h.must("start")
	for _, w := range want {
		if !strings.Contains(check.stdout, w) {
			t.Errorf("config check does not say %q:\n%s", w, check.stdout)
		}
		if !strings.Contains(doctor.stdout, w) {
			t.Errorf("doctor does not say %q:\n%s", w, doctor.stdout)
		}
		if !strings.Contains(start.stdout, w) {
			t.Errorf("start does not say %q:\n%s", w, start.stdout)
		}
		if !strings.Contains(r.h.logs(), w) {
			t.Errorf("the log does not say %q", w)
		}
	}
	if strings.Contains(check.stdout, "memory.backend") {
		t.Errorf("config check warns about a key that works:\n%s", check.stdout)
	}
}

// TestBashDisabledRemovesBothShells: tools.bash.enabled: false leaves
// neither bash nor terminal among the tools the model is offered.
func TestBashDisabledRemovesBothShells(t *testing.T) {
	r := newChatRig(t, rigOptions{extra: "tools:\n  bash:\n    enabled: false\n"})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.chat("ana", "hello")
	var names []string
	for _, tl := range llmLast(t, r.llm).Tools {
		names = append(names, tl.Name)
	}
	if slices.Contains(names, "bash") || slices.Contains(names, "terminal") {
		t.Errorf("tools offered with bash disabled: %v", names)
	}
	if !slices.Contains(names, "read_file") {
		t.Errorf("the other tools are gone too: %v", names)
	}
}

// TestTUIDisabledRefused: gateway.channels.tui.enabled: false refuses
// the terminal channel on the control socket; other clients still talk.
func TestTUIDisabledRefused(t *testing.T) {
	r := newChatRig(t, rigOptions{gateway: "  channels:\n    tui:\n      enabled: false\n"})
	r.start()
	c := client.NewUnix(filepath.Join(r.h.dir, "run", "beamclaw.sock"))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if conn, err := c.Dial(ctx, "default", client.DialOptions{User: "ana", Channel: "tui"}); err == nil {
		conn.Close()
		t.Fatal("a TUI connection was admitted with the channel disabled")
	} else if !strings.Contains(err.Error(), "terminal channel is disabled") {
		t.Errorf("refusal does not say why: %v", err)
	}
	conn, err := c.Dial(ctx, "default", client.DialOptions{User: "ana"})
	if err != nil {
		t.Fatalf("a WebSocket client over the socket was refused too: %v", err)
	}
	conn.Close()
	if res := r.h.run("tui"); res.code == 0 || !strings.Contains(res.stderr+res.stdout, "terminal channel is disabled") {
		t.Errorf("beamclaw tui: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}
