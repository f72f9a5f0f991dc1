package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

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
		if !strings.Contains(p, "Permission denied") && !strings.Contains(p, "start") {
			t.Errorf("terminal probe neither refused nor harmless: %q", p)
		}
	}
}
