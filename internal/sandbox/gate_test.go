package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
)

func TestInstallIDIsMadeOnceAndKept(t *testing.T) {
	file := filepath.Join(t.TempDir(), "home", "install-id")
	id, err := InstallID(file)
	if err != nil || !installIDRE().MatchString(id) {
		t.Fatalf("InstallID = %q, %v", id, err)
	}
	again, err := InstallID(file)
	if err != nil || again != id {
		t.Fatalf("second InstallID = %q, %v; want %q", again, err, id)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if err := os.WriteFile(file, []byte("no good\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallID(file); err == nil || !strings.Contains(err.Error(), "remove the file") {
		t.Errorf("a damaged id file: %v", err)
	}
}

// fakeCaller is a run's ToolCaller.
type fakeCaller struct{ called []string }

func (f *fakeCaller) Specs() []beamclaw.ToolSpec {
	return []beamclaw.ToolSpec{{Def: beamclaw.ToolDef{Name: "read_file", Description: "Read a file.", Source: "builtin",
		Parameters: json.RawMessage(`{"type":"object"}`)}}}
}

func (f *fakeCaller) CallTool(_ context.Context, name string, args json.RawMessage) (string, error) {
	f.called = append(f.called, name+" "+string(args))
	if name == "bad" {
		return "", errors.New("denied: no")
	}
	return "ok", nil
}

func TestRunToolsActThroughTheRunsToolCaller(t *testing.T) {
	var rt RunTools
	if _, err := rt.List(context.Background(), Caller{}); err == nil || !strings.Contains(beamclaw.UserMessage(err), "only from a script") {
		t.Errorf("List without a run: %v", err)
	}
	fc := &fakeCaller{}
	ctx := beamclaw.WithToolCaller(context.Background(), fc)
	list, err := rt.List(ctx, Caller{})
	if err != nil || len(list) != 1 || list[0].Name != "read_file" || list[0].Source != "builtin" || string(list[0].Schema) != `{"type":"object"}` {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if out, err := rt.Call(ctx, Caller{}, "read_file", json.RawMessage(`{"path":"a"}`)); out != "ok" || err != nil {
		t.Errorf("Call = %q, %v", out, err)
	}
	if _, err := rt.Call(ctx, Caller{}, "bad", nil); err == nil || err.Error() != "denied: no" {
		t.Errorf("a refused call: %v", err)
	}
	if len(fc.called) != 2 {
		t.Errorf("calls %v", fc.called)
	}
}

// A gate over an engine that does not answer stays off, says why once at
// WARN and never enables.
func TestGateStaysOffWithoutAnEngine(t *testing.T) {
	var logs bytes.Buffer
	m, err := New(Options{InstallID: "gate-test", DockerHost: "unix:///nonexistent/docker.sock",
		BridgeSocketDir: shortTempDir(t), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var enabled atomic.Int32
	sup := supervise.New("test", supervise.Options{})
	g := m.NewGate(GateOptions{Supervisor: sup, Enable: func(context.Context) error { enabled.Add(1); return nil }})
	for range 2 {
		if p := g.Try(context.Background()); !strings.Contains(p, "not reachable") || !strings.Contains(p, "start dockerd") {
			t.Fatalf("problem %q", p)
		}
	}
	if g.On() || enabled.Load() != 0 || g.Problem() == "" {
		t.Errorf("on=%v enabled=%d problem=%q", g.On(), enabled.Load(), g.Problem())
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 {
		t.Errorf("%d WARN lines, want 1:\n%s", n, logs.String())
	}
}

// With the engine and the image, Try enables once and adds the services
// (a run works: the registry serves), and the gate's service just waits.
func TestGateTurnsOnWhenReady(t *testing.T) {
	opts := testOptions(t)
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	sup := supervise.New("test", supervise.Options{Backoff: time.Millisecond})
	var enabled atomic.Int32
	g := m.NewGate(GateOptions{Supervisor: sup, Enable: func(context.Context) error { enabled.Add(1); return nil }})
	if p := g.Try(context.Background()); p != "" {
		t.Fatalf("problem %q", p)
	}
	if p := g.Try(context.Background()); p != "" || enabled.Load() != 1 || !g.On() {
		t.Fatalf("second Try: %q, enabled %d times, on %v", p, enabled.Load(), g.On())
	}
	sup.Add(g)
	ctx, cancel := context.WithCancel(context.Background())
	done := sup.ServeBackground(ctx)
	defer func() {
		cancel()
		<-done
		if n := countContainers(t, opts.InstallID); n != 0 {
			t.Errorf("%d containers left", n)
		}
	}()
	if res := mustRun(t, m, caller("gate"), LangSh, "echo on"); res.Stdout != "on\n" {
		t.Fatalf("run: %s", dump(res))
	}
}

// SweepSoon makes the reaper sweep now: the container of a session that
// ended goes without waiting for the interval.
func TestSweepSoonReapsAnEndedSession(t *testing.T) {
	opts := testOptions(t)
	ss := &sessions{}
	ev := &events{}
	opts.SessionAlive, opts.Emit, opts.ReaperInterval = ss.alive, ev.Record, time.Hour
	m := startManager(t, opts)
	name := mustRun(t, m, caller("ending"), LangSh, "true").Container
	ss.end("ending")
	m.SweepSoon()
	deadline := time.Now().Add(time.Minute)
	for ev.reaped()[name] != ReapSessionGone {
		if time.Now().After(deadline) {
			t.Fatalf("container %s of an ended session not reaped after SweepSoon", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
