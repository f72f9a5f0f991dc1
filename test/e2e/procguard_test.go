package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// TestToolsCannotReadTheDaemon: bash and terminal run as the daemon's
// user (root in CI) and still find none of the daemon's environment in
// /proc/$PPID/{environ,cmdline,mem} or in `ps e`, in any encoding.
func TestToolsCannotReadTheDaemon(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"ws": "full"}})
	canary := canarySecret(t, "sk-proj-", 40)
	r.h.env = append(r.h.env, "CANARY_SECRET="+canary)
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	conn := r.dial("ana")
	allow := func(protocol.WSApproval) string { return protocol.DecisionAllow }
	script := `for f in environ cmdline mem; do head -c 65536 /proc/$PPID/$f 2>&1 | tr '\0' '\n' | rev; done; ` +
		`ps e -ww -p $PPID -o args= 2>&1 | rev; echo probe-done`
	args, _ := json.Marshal(map[string]string{"script": script})
	run := sendRun(t, conn, "call tool bash "+string(args), allow)
	if got := run.finalText(t); !strings.Contains(got, "probe-done") {
		t.Fatalf("the probe did not run: %q", got)
	}
	last := func() string {
		res := llmToolResults(llmLast(t, r.llm))
		if len(res) == 0 {
			t.Fatal("no tool result reached the model")
		}
		return res[len(res)-1]
	}
	probes := []string{last()}
	for _, path := range []string{"environ", "cmdline", "mem"} {
		cmd := fmt.Sprintf(`call tool terminal {"command":["head","-c","65536","/proc/%s/%s"]}`, strconv.Itoa(r.pid), path)
		sendRun(t, conn, cmd, allow)
		probes = append(probes, last())
	}
	for _, p := range probes {
		if strings.Contains(p, canary) || strings.Contains(p, reverse(canary)) || strings.Contains(p, "CANARY_SECRET") {
			t.Errorf("a tool read the daemon's environment: %q", p)
		}
	}
	for _, p := range probes[1:] {
		// the daemon's pid is not even in the tool's own /proc
		if !strings.Contains(p, "Permission denied") && !strings.Contains(p, "No such file") && !strings.Contains(p, "start") {
			t.Errorf("terminal probe neither refused nor harmless: %q", p)
		}
	}
}

// TestHardening2ToolsCannotReadMCPSecrets (issue 23, item 4): an MCP
// stdio server the daemon started holds a token in its environment; bash
// (as the daemon's user) finds no process but its own in /proc, so
// neither the token nor the daemon's pid, and what it leaves running ends
// with it.
func TestHardening2ToolsCannotReadMCPSecrets(t *testing.T) {
	bin := mcpBuildFixture(t)
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"ws": "full"},
		extra: fmt.Sprintf("mcp:\n  servers:\n    - name: fx\n      command: %q\n      env:\n        FX_TOKEN: {env: FX_TOKEN}\n", bin)})
	r.h.env = append(r.h.env, "FX_TOKEN="+canarySecret(t, "fx-", 32))
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.h.waitMCPState("fx", "ready", 60*time.Second)
	conn := r.dial("ana")
	allow := func(protocol.WSApproval) string { return protocol.DecisionAllow }
	script := `echo tokens $(cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n' | grep -c FX_TOKEN); ` +
		`echo daemon $(ls -d /proc/` + strconv.Itoa(r.pid) + ` 2>/dev/null | wc -l); setsid sleep 4747.5 >/dev/null 2>&1 & echo probe-done`
	args, _ := json.Marshal(map[string]string{"script": script})
	run := sendRun(t, conn, "call tool bash "+string(args), allow)
	if got := run.finalText(t); !strings.Contains(got, "probe-done") {
		t.Fatalf("the probe did not run: %q", got)
	}
	res := llmToolResults(llmLast(t, r.llm))
	if len(res) == 0 || !strings.Contains(res[len(res)-1], "tokens 0") || !strings.Contains(res[len(res)-1], "daemon 0") {
		t.Fatalf("bash reached the MCP server's environment or the daemon's /proc entry: %q", res)
	}
	if !strings.Contains(r.h.logs(), "tool processes isolated") {
		t.Errorf("the daemon did not say at start what isolation is in effect")
	}
	if d := r.h.run("doctor"); !strings.Contains(d.stdout, "tool isolation") || !strings.Contains(d.stdout, "namespaces of their own") {
		t.Errorf("doctor does not say what isolation is in effect:\n%s", d.stdout)
	}
	for range 100 {
		if !procRunning("sleep\x004747.5") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("a process bash left running outlived the call")
}

// procRunning reports whether a process whose command line starts with
// prefix runs on this host.
func procRunning(prefix string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.HasPrefix(string(b), prefix) {
			return true
		}
	}
	return false
}
