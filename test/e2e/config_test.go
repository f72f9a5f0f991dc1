package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestNoKeyIsWarnedAsDoingNothing: every subsystem is built, so a config
// that switches every section on gets no "does nothing" warning from
// config check, doctor or start (config.Reserved is empty; its mechanism
// stays for subsystems still to come and is unit-tested in config).
func TestNoKeyIsWarnedAsDoingNothing(t *testing.T) {
	r := newChatRig(t, rigOptions{core: "  maintenance:\n    enabled: true\n    pre_expiry_minutes: 10\n",
		extra: "scheduler:\n  enabled: true\n  max_errors: 3\n"})
	check := r.h.must("config", "check")
	doctor := r.h.run("doctor")
	start := r.h.must("start")
	for name, out := range map[string]string{"config check": check.stdout, "doctor": doctor.stdout, "start": start.stdout,
		"the log": r.h.logs()} {
		if strings.Contains(out, "does nothing") {
			t.Errorf("%s warns about a key that works:\n%s", name, out)
		}
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

// TestStartNamesWhatCannotWork: a provider whose key variable is unset,
// and an agent left without a usable provider, are named by start (stdout
// and log); doctor reports the running daemon's view, not its own shell's;
// without a config file doctor says the defaults apply.
func TestStartNamesWhatCannotWork(t *testing.T) {
	llm := fakellm.New(t)
	h := newHome(t, "core:\n  default_provider: paid\n  providers:\n"+
		"    paid: {base_url: \""+llm.URL()+"\", model: m, api_key: {env: PAID_API_KEY}}\n"+
		"gateway:\n  http:\n    addr: \"127.0.0.1:0\"\nmemory:\n  embedding:\n    enabled: false\n")
	want := []string{"provider paid: PAID_API_KEY is not set", "agent default has no usable provider: no key for paid"}
	start := h.must("start")
	for _, w := range want {
		if !strings.Contains(start.stdout, w) {
			t.Errorf("start does not say %q:\n%s", w, start.stdout)
		}
		if !strings.Contains(h.logs(), w) {
			t.Errorf("the log does not say %q", w)
		}
	}
	// The shell running doctor has the key; the daemon does not.
	h.env = append(h.env, "PAID_API_KEY=sk-test-0123456789")
	doctor := h.run("doctor")
	if !strings.Contains(doctor.stdout, "PAID_API_KEY is not set, so every call to it fails (export it before starting) (as the running daemon sees it)") {
		t.Errorf("doctor does not report the daemon's view:\n%s", doctor.stdout)
	}

	empty := newHome(t, "")
	if err := os.Remove(filepath.Join(empty.dir, "config.yaml")); err != nil {
		t.Fatal(err)
	}
	if d := empty.run("doctor"); !strings.Contains(d.stdout, "no config file at") || strings.Contains(d.stdout, "config: valid") {
		t.Errorf("doctor without a config file:\n%s", d.stdout)
	}
}

// TestAgentCreateDeleteTakeEffectAtOnce: an agent created or deleted while
// the daemon runs is there (or gone) for the API at once.
func TestAgentCreateDeleteTakeEffectAtOnce(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	models := func() string {
		_, body := get(t, "http://"+r.addr+"/v1/models")
		return body
	}
	r.h.must("agent", "create", "scout")
	if !strings.Contains(models(), "beamclaw/scout") {
		t.Fatalf("created agent not listed: %s", models())
	}
	status, _ := r.postRaw(t, `{"model":"beamclaw/scout","user":"ana","messages":[{"role":"user","content":"hello"}]}`, nil)
	if status != http.StatusOK {
		t.Fatalf("chat with the new agent: %d", status)
	}
	r.h.must("agent", "delete", "scout", "--yes")
	if strings.Contains(models(), "beamclaw/scout") {
		t.Errorf("deleted agent still listed: %s", models())
	}
	if status, param := r.postRaw(t, `{"model":"beamclaw/scout","user":"ana","messages":[{"role":"user","content":"hello"}]}`, nil); status != http.StatusNotFound || param != "model" {
		t.Errorf("chat with the deleted agent: %d %q, want 404 model", status, param)
	}
}

// TestCheckAndStartAgree: `config check` and `start` apply the same rules,
// because each section's owner validates it once for both. Every invalid
// value is refused by both, naming the same key; every valid one passes
// both (a wildcard in sandbox.env_allowlist, which the sandbox supports,
// was once refused by check alone; 8m passed check and failed start; a
// heartbeat to telegram:abc passed check and failed when delivered).
func TestCheckAndStartAgree(t *testing.T) {
	const listen = "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\n"
	invalid := []struct{ yaml, key string }{
		{"sandbox:\n  enabled: true\n  memory_limit: 8m\n", "sandbox.memory_limit"},
		{"sandbox:\n  memory_limit: 8m\n", "sandbox.memory_limit"},
		{"sandbox:\n  enabled: true\n  cpu_limit: \"0\"\n", "sandbox.cpu_limit"},
		{"sandbox:\n  enabled: true\n  bridge_socket_dir: relative/dir\n", "sandbox.bridge_socket_dir"},
		{"sandbox:\n  enabled: true\n  policy:\n    rules: [{action: maybe, tool: x}]\n", "sandbox.policy.rules[0].action"},
		{"sandbox:\n  enabled: true\n  env_allowlist: [\"1BAD\"]\n", "sandbox.env_allowlist[0]"},
		{"scheduler:\n  enabled: true\n  heartbeat:\n    deliver: \"telegram:abc\"\n", "scheduler.heartbeat.deliver"},
		{"scheduler:\n  time_zone: Mars/Olympus\n", "scheduler.time_zone"},
		{"scheduler:\n  heartbeat:\n    deliver: \"webhook:nosuch\"\n", "scheduler.heartbeat.deliver"},
		{"core:\n  session_sharing: global\n", "core.session_sharing"},
		{"core:\n  providers:\n    local:\n      kind: anthropic-ish\n      base_url: http://127.0.0.1:1/v1\n      model: m\n", "core.providers.local.kind"},
		{"core:\n  maintenance:\n    enabled: true\n    idle_compaction_target_pct: 50\n", "core.maintenance.idle_compaction_target_pct"},
	}
	for _, c := range invalid {
		h := newHome(t, listen+c.yaml)
		check, start := h.run("config", "check"), h.run("start")
		for name, r := range map[string]result{"config check": check, "start": start} {
			if r.code == 0 || !strings.Contains(r.stdout+r.stderr, c.key) {
				t.Errorf("%s on %q: exit %d, want a refusal naming %s:\n%s%s", name, c.yaml, r.code, c.key, r.stdout, r.stderr)
			}
		}
		if _, running := h.status(); running {
			t.Errorf("start on %q left a daemon running", c.yaml)
		}
	}
	valid := []string{
		"sandbox:\n  env_allowlist: [PATH, \"LC_*\"]\n  memory_limit: 16m\n",
	}
	for _, y := range valid {
		h := newHome(t, listen+y)
		h.must("config", "check")
		h.must("start")
		h.must("stop")
	}
}
