package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// TestHardening2SandboxRunsAreApart (issue 23, item 1): in one shared
// container, Alice plants detached watchers that loot every process's
// environment and script; Bob then runs a script with a secret. Her
// watchers died with her run (setsid, double fork, at its end and at its
// timeout), so her loot holds nothing of Bob's; /dev/mqueue is not a
// writable place.
func TestHardening2SandboxRunsAreApart(t *testing.T) {
	requireSandbox(t)
	r := sandboxRig(t, rigOptions{}, "  scope: shared\n  timeout_seconds: 3\n")
	r.start()
	alice, bob := r.localConn("alice"), r.localConn("bob")
	exec := func(who string, lang, code string) execOutput {
		t.Helper()
		conn := alice
		if who == "bob" {
			conn = bob
		}
		sendRun(t, conn, execMessage(t, lang, code), nil)
		out, _ := execResult(t, r.llm)
		return out
	}
	const watcher = `while :; do for p in /proc/[0-9]*; do cat $p/environ $p/fd/3 2>/dev/null | tr '\0' '\n' >> /tmp/loot; done; sleep 0.1; done`
	plant := "touch /tmp/loot\nsetsid sh -c '" + watcher + "' >/dev/null 2>&1 &\n(sh -c '" + watcher + "' >/dev/null 2>&1 &)\necho planted\n"
	if out := exec("alice", "sh", plant); out.Stdout != "planted\n" {
		t.Fatalf("plant: %+v", out)
	}
	if out := exec("alice", "sh", plant+"sleep 10\n"); !out.TimedOut {
		t.Fatalf("plant with a timeout: %+v", out)
	}
	if out := exec("bob", "sh", "echo BOB-SECRET-42 > /dev/null; sleep 1; echo bob done"); out.Stdout != "bob done\n" {
		t.Fatalf("bob: %+v", out)
	}
	// Her watchers saw her own runs (their tokens: at most the two that
	// planted them), never Bob's script or token.
	out := exec("alice", "sh", "grep -ac BOB-SECRET /tmp/loot; grep -ao 'BEAMCLAW_RUN_TOKEN=[0-9a-f]*' /tmp/loot | sort -u | wc -l; echo x > /dev/mqueue/q 2>/dev/null && echo mqueue writable")
	f := strings.Fields(out.Stdout)
	if tokens, err := strconv.Atoi(f[len(f)-1]); len(f) != 2 || f[0] != "0" || err != nil || tokens > 2 {
		t.Errorf("alice's loot holds bob's script (count 1), more tokens than her own two (count 2), or mqueue was writable: %+v", out)
	}
	if procs := exec("alice", "python", `import os
n = 0
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            n += open("/proc/%s/cmdline" % p, "rb").read().startswith(b"sh\x00-c")
        except OSError:
            pass
print(n)
`); strings.TrimSpace(procs.Stdout) != "0" {
		t.Errorf("alice's watchers outlived her runs: %+v", procs)
	}
}
