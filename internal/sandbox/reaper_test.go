package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/obs/obstest"
)

// events collects emitted events.
type events struct{ obstest.Recorder }

// reaped maps the reaped containers' names to the reasons.
func (e *events) reaped() map[string]string {
	out := map[string]string{}
	for _, ev := range e.Named(beamclaw.EventSandboxReaped) {
		var name, reason string
		for _, a := range ev.Attrs {
			switch a.Key {
			case "container_name":
				name = a.Value.String()
			case "reason":
				reason = a.Value.String()
			}
		}
		out[name] = reason
	}
	return out
}

// sessions is a settable SessionAlive.
type sessions struct {
	mu   sync.Mutex
	dead map[string]bool
}

func (s *sessions) alive(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.dead[id]
}

func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead == nil {
		s.dead = map[string]bool{}
	}
	s.dead[id] = true
}

// plantContainer creates a running container with labels, as another
// (perhaps dead) daemon would have left it.
func plantContainer(t *testing.T, image string, labels map[string]string) string {
	t.Helper()
	c := testEngine(t)
	ctx := context.Background()
	res, err := c.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name:       "beamclaw-sbx-planted-" + randomHex(4),
		Config:     &container.Config{Image: image, Cmd: []string{"sleep", "infinity"}, Labels: labels},
		HostConfig: &container.HostConfig{NetworkMode: "none"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = c.ContainerRemove(context.Background(), res.ID, client.ContainerRemoveOptions{Force: true})
	})
	if _, err := c.ContainerStart(ctx, res.ID, client.ContainerStartOptions{}); err != nil {
		t.Fatal(err)
	}
	return res.ID
}

func exists(t *testing.T, id string) bool {
	t.Helper()
	_, err := testEngine(t).ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
	return err == nil
}

func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestReaperRemovesDeadDaemonsContainers(t *testing.T) {
	opts := testOptions(t)
	ev := &events{}
	opts.Emit = ev.Record
	m := startManager(t, opts)
	me := m.daemon
	lbl := func(daemon string) map[string]string {
		return map[string]string{LabelInstall: opts.InstallID, LabelDaemon: daemon, LabelInstance: "other", LabelSession: "old"}
	}
	otherBoot := plantContainer(t, opts.Image, lbl(daemonID{Boot: "some-other-boot", PID: me.PID, Start: me.Start}.String()))
	deadProc := plantContainer(t, opts.Image, lbl(daemonID{Boot: me.Boot, PID: deadPID(t), Start: 1}.String()))
	unlabelled := plantContainer(t, opts.Image, lbl(""))
	liveOther := plantContainer(t, opts.Image, lbl(me.String())) // another Manager in a live process
	otherInstall := plantContainer(t, opts.Image, map[string]string{LabelInstall: "someone-else", LabelDaemon: "x/1/1"})

	got, err := m.Reap(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Errorf("reaped %+v, want 3 containers", got)
	}
	for _, r := range got {
		if r.Reason != ReapDaemonDead || r.Session != "old" {
			t.Errorf("reaped %+v, want reason %s", r, ReapDaemonDead)
		}
	}
	for id, want := range map[string]bool{otherBoot: false, deadProc: false, unlabelled: false, liveOther: true, otherInstall: true} {
		if exists(t, id) != want {
			t.Errorf("container %s exists=%v, want %v", shortID(id), !want, want)
		}
	}
	if n := len(ev.reaped()); n != 3 {
		t.Errorf("%d sandbox_reaped events, want 3", n)
	}
	_, _ = testEngine(t).ContainerRemove(context.Background(), liveOther, client.ContainerRemoveOptions{Force: true})
}

func TestReaperSessionGoneButNotInFlight(t *testing.T) {
	opts := testOptions(t)
	ev := &events{}
	ss := &sessions{}
	opts.Emit, opts.SessionAlive = ev.Record, ss.alive
	m := startManager(t, opts)
	gone := mustRun(t, m, caller("gone"), LangSh, "true").Container
	kept := mustRun(t, m, caller("kept"), LangSh, "true").Container
	busy := mustRun(t, m, caller("busy"), LangSh, "true").Container

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Result, 1)
	go func() {
		res, _ := m.Run(ctx, caller("busy"), Script{Language: LangSh, Code: "touch /tmp/in; while [ ! -e /tmp/out ]; do sleep 0.05; done"})
		done <- res
	}()
	waitFor(t, func() bool { return mustRun(t, m, caller("busy"), LangSh, "test -e /tmp/in && echo y").Stdout == "y\n" })
	ss.end("gone")
	ss.end("busy")
	got, err := m.Reap(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != gone || got[0].Reason != ReapSessionGone {
		t.Fatalf("reaped %+v, want only %s (session gone); %s has a run in flight", got, gone, busy)
	}
	// The run in flight finishes; the next sweep takes its container.
	if _, err := m.Run(context.Background(), caller("busy"), Script{Language: LangSh, Code: "touch /tmp/out"}); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res.ExitCode != 0 {
		t.Fatalf("in-flight run was disturbed: %s", dump(res))
	}
	got, _ = m.Reap(context.Background())
	if len(got) != 1 || got[0].Name != busy {
		t.Fatalf("second sweep reaped %+v, want %s", got, busy)
	}
	if r := ev.reaped(); r[gone] != ReapSessionGone || r[busy] != ReapSessionGone || r[kept] != "" {
		t.Errorf("events: %v", r)
	}
	if n := countContainers(t, opts.InstallID); n != 1 {
		t.Errorf("%d containers left, want 1 (%s)", n, kept)
	}
}

func TestReaperPostureAndIdle(t *testing.T) {
	opts := testOptions(t)
	fake := clock.NewFake(time.Unix(1_700_000_000, 0))
	ev := &events{}
	opts.Clock, opts.IdleTimeout, opts.Emit = fake, 10*time.Minute, ev.Record
	m := startManager(t, opts)
	first := mustRun(t, m, caller("p"), LangSh, "true").Container
	m.limits.nanoCPUs /= 2 // what a changed cpu_limit would do
	got, err := m.Reap(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != first || got[0].Reason != ReapPosture {
		t.Fatalf("reaped %+v, want %s for its posture", got, first)
	}
	second := mustRun(t, m, caller("p"), LangSh, "true").Container
	if second == first {
		t.Fatal("the container was not recreated")
	}
	if got, _ := m.Reap(context.Background()); len(got) != 0 {
		t.Fatalf("a fresh container was reaped: %+v", got)
	}
	// Advancing the clock also wakes the reaper service, whose sweep may
	// take the container first: either sweep counts.
	fake.Advance(11 * time.Minute)
	if _, err := m.Reap(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := ev.reaped()[second]; r != ReapIdle {
		t.Fatalf("idle container %s not reaped for idleness: %v", second, ev.reaped())
	}
}

// TestKilledDaemonsContainersReapedAtNextStart runs a real daemon-like
// child process that starts a sandbox, kills it with SIGKILL, and checks
// that the next Manager of the same install reaps what it left.
func TestKilledDaemonsContainersReapedAtNextStart(t *testing.T) {
	opts := testOptions(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDaemon$")
	cmd.Env = append(os.Environ(), "BEAMCLAW_SANDBOX_HELPER=1", "HELPER_INSTALL="+opts.InstallID,
		"HELPER_DIR="+opts.BridgeSocketDir, "HELPER_IMAGE="+opts.Image)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf) // "ready <container>" once its container runs
	line := strings.TrimSpace(string(buf[:n]))
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	name, ok := strings.CutPrefix(line, "ready ")
	if !ok {
		t.Fatalf("helper daemon said %q", line)
	}
	if !exists(t, name) {
		t.Fatalf("the killed daemon's container %s is already gone: nothing to reap", name)
	}
	m := startManager(t, opts) // its reaper sweeps at start; Reap again to be sure
	if _, err := m.Reap(context.Background()); err != nil {
		t.Fatal(err)
	}
	if exists(t, name) {
		t.Fatalf("container %s of the killed daemon was not reaped", name)
	}
}

// TestHelperDaemon is the child of TestKilledDaemonsContainersReapedAtNextStart.
func TestHelperDaemon(t *testing.T) {
	if os.Getenv("BEAMCLAW_SANDBOX_HELPER") != "1" {
		t.Skip("helper process")
	}
	m, err := New(Options{Image: os.Getenv("HELPER_IMAGE"), InstallID: os.Getenv("HELPER_INSTALL"),
		BridgeSocketDir: os.Getenv("HELPER_DIR")})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	go func() { _ = m.reg.Serve(ctx) }()
	res, err := m.Run(ctx, caller("crash"), Script{Language: LangSh, Code: "true"})
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("ready " + res.Container + "\n")
	select {} // until SIGKILL
}
