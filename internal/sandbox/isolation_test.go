package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"
)

// sleepers counts the processes left running `sleep` in the container.
const sleepers = `
import os
n = 0
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            n += open("/proc/%s/cmdline" % p, "rb").read().startswith(b"sleep")
        except OSError:
            pass
print(n)
`

// A run's processes end with it however they detach: setsid, a double
// fork, nohup; at its normal end and at its timeout.
func TestDetachedProcessesEndWithTheRun(t *testing.T) {
	m := startManager(t, testOptions(t))
	c := caller("s-detach")
	const plant = "setsid sleep 1000 &\n(sleep 1001 &)\nnohup setsid sleep 1002 >/dev/null 2>&1 &\necho planted\n"
	if res := mustRun(t, m, c, LangSh, plant); res.Stdout != "planted\n" {
		t.Fatalf("plant: %s", dump(res))
	}
	if left := mustRun(t, m, c, LangPython, sleepers); strings.TrimSpace(left.Stdout) != "0" {
		t.Fatalf("detached processes outlived their run: %s", dump(left))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := m.Run(ctx, c, Script{Language: LangSh, Timeout: 2 * time.Second, Code: plant + "sleep 10\n"})
	if err != nil || !res.TimedOut {
		t.Fatalf("want a timeout: %v %s", err, dump(res))
	}
	if left := mustRun(t, m, c, LangPython, sleepers); strings.TrimSpace(left.Stdout) != "0" {
		t.Fatalf("detached processes outlived their run's timeout: %s", dump(left))
	}
}

// peek, run while another session's script sleeps, tries everything the
// attack kit did against it: its environment (the run token), its script,
// its memory (what ptrace needs), a signal, and its files.
const peek = `
import os, time
deadline = time.time() + 20
victim = None
while victim is None and time.time() < deadline:
    for p in os.listdir("/proc"):
        try:
            if p.isdigit() and open("/proc/%s/cmdline" % p, "rb").read().startswith(b"sleep\x0033"):
                victim = p
        except OSError:
            pass
    time.sleep(0.02)
print("victim", victim is not None)
for what in ("environ", "fd/3", "mem"):
    try:
        open("/proc/%s/%s" % (victim, what), "rb").read(64)
        print(what, "READ")
    except OSError as e:
        print(what, "refused")
try:
    os.kill(int(victim), 0)
    print("signal", "SENT")
except OSError:
    print("signal", "refused")
try:
    print("file", open("/tmp/bob.txt").read().strip())
except OSError:
    print("file", "refused")
`

// Runs of other sessions in one container (scope shared) cannot touch
// each other: no environment (so no run token), no script, no memory, no
// signal, no files; runs of one session share their files.
func TestRunsOfOtherSessionsCannotTouchEachOther(t *testing.T) {
	opts := testOptions(t)
	opts.Scope = ScopeShared
	m := startManager(t, opts)
	alice, bob := caller("s-alice"), caller("s-bob")
	done := make(chan Result, 1)
	bobCtx, stopBob := context.WithTimeout(context.Background(), time.Minute)
	defer stopBob()
	go func() {
		res, err := m.Run(bobCtx, bob, Script{Language: LangSh,
			Code: "echo BOB-SECRET-42 > /tmp/bob.txt\necho \"$BEAMCLAW_RUN_TOKEN\" > /tmp/bob-token\nsleep 33\n", Timeout: 8 * time.Second})
		if err != nil && bobCtx.Err() == nil {
			t.Errorf("bob: %v", err)
		}
		done <- res
	}()
	res := mustRun(t, m, alice, LangPython, peek)
	want := "victim True\nenviron refused\nfd/3 refused\nmem refused\nsignal refused\nfile refused\n"
	if res.Stdout != want {
		t.Errorf("alice's run reached bob's:\n%s\nwant stdout:\n%s", dump(res), want)
	}
	stopBob() // his sleep ends here
	<-done
	if res := mustRun(t, m, bob, LangSh, "cat /tmp/bob.txt"); res.Stdout != "BOB-SECRET-42\n" {
		t.Errorf("a later run of bob's session cannot read its file: %s", dump(res))
	}
	if res := mustRun(t, m, alice, LangSh, "cat /tmp/bob-token 2>/dev/null || echo refused"); res.Stdout != "refused\n" {
		t.Errorf("alice read bob's file after his run: %s", dump(res))
	}
}
