package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/thejerf/suture/v4"
	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// fixtureBin is the mcpfixture server binary built by TestMain.
var fixtureBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "beamclaw-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tempdir:", err)
		os.Exit(2)
	}
	fixtureBin = filepath.Join(dir, "mcpfixture")
	build := exec.Command("go", "build", "-o", fixtureBin, "github.com/beamclaw/beamclaw-go/test/mcpfixtures/cmd/mcpfixture")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build mcpfixture:", err)
		_ = os.RemoveAll(dir)
		os.Exit(2)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { _ = os.RemoveAll(dir) }))
}

// fixture is a stdio ServerConfig for the mcpfixture binary.
func fixture(name string, args ...string) ServerConfig {
	return ServerConfig{Name: name, Command: fixtureBin, Args: args, Enabled: true, Timeout: 20 * time.Second}
}

func attr(e beamclaw.Event, key string) string {
	for _, a := range e.Attrs {
		if a.Key == key {
			return a.Value.String()
		}
	}
	return ""
}

// run builds a Manager and runs its services under a suture supervisor
// until the test ends.
func run(t testing.TB, opts Options) *Manager {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	m, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	sup := suture.New("mcp-test", suture.Spec{FailureThreshold: 1000, FailureBackoff: time.Millisecond})
	for _, s := range m.Services() {
		sup.Add(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := sup.ServeBackground(ctx)
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return m
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(p))
	return len(p), nil
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

func stateOf(m *Manager, name string) ServerStatus {
	for _, s := range m.Status() {
		if s.Name == name {
			return s
		}
	}
	return ServerStatus{}
}

func waitReady(t testing.TB, m *Manager, name string) {
	t.Helper()
	waitFor(t, name+" ready", func() bool { return stateOf(m, name).State == StateReady })
}

func toolNames(tools []beamclaw.Tool) []string {
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		out = append(out, t.Spec().Def.Name)
	}
	return out
}

func call(t *testing.T, m *Manager, name, args string) (string, error) {
	t.Helper()
	tool, ok := m.Lookup(name)
	if !ok {
		t.Fatalf("Lookup(%q): not found", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return tool.Execute(ctx, beamclaw.Invocation{Args: []byte(args), CallID: "c1"})
}

// instantClock fires every After of up to 10 s (backoff) at once, never longer ones (pings), and advances Now by a
// millisecond per call, so backoff never waits and every failure falls
// inside the budget window.
type instantClock struct {
	realTimers
	mu  sync.Mutex
	now time.Time
}

func (c *instantClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

func (c *instantClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	if d <= 10*time.Second {
		ch <- c.Now()
	}
	return ch
}

// realTimers gives a test clock the real clock's timers, tickers and
// AfterFuncs: the manager waits on its clock only through After.
type realTimers struct{}

func (realTimers) NewTimer(d time.Duration) clock.Timer   { return clock.System.NewTimer(d) }
func (realTimers) NewTicker(d time.Duration) clock.Ticker { return clock.System.NewTicker(d) }
func (realTimers) AfterFunc(d time.Duration, f func()) clock.Timer {
	return clock.System.AfterFunc(d, f)
}
