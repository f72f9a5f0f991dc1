package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/test/testenv"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// unavailable skips loudly, or fails under CI.
func unavailable(t testing.TB, msg string) {
	t.Helper()
	testenv.Unavailable(t, msg, "apt-get install docker.io and start dockerd; `beamclaw sandbox build` builds the image")
}

// requireDocker skips (fails under CI) without a reachable engine.
func requireDocker(t testing.TB) {
	t.Helper()
	c, err := newEngine("")
	if err != nil {
		unavailable(t, "DOCKER CLIENT UNAVAILABLE: "+err.Error())
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := pingEngine(ctx, c, "test"); err != nil {
		unavailable(t, "DOCKER ENGINE NOT AVAILABLE, the sandbox tests did not run: "+err.Error())
	}
}

// testImage is built once per test binary (BuildImage skips it when its
// content label is current, so CI's cached image is reused).
var testImage struct {
	once sync.Once
	name string
	log  string
	err  error
}

// testImageName is the image the tests use: BEAMCLAW_SANDBOX_IMAGE or
// the default, so the daemon and the tests share one build.
func testImageName() string {
	if s := os.Getenv("BEAMCLAW_SANDBOX_IMAGE"); s != "" {
		return s
	}
	return DefaultImage
}

// requireImage returns the sandbox image, building it on first use.
func requireImage(t testing.TB) string {
	t.Helper()
	requireDocker(t)
	testImage.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		var log bytes.Buffer
		_, err := BuildImage(ctx, BuildOptions{Image: testImageName()}, &log)
		testImage.name, testImage.err, testImage.log = testImageName(), err, log.String()
	})
	if testImage.err != nil {
		var be *beamclaw.Error
		if errors.As(testImage.err, &be) && be.Kind == beamclaw.KindUnavailable {
			unavailable(t, "SANDBOX IMAGE CANNOT BE BUILT, the sandbox tests did not run: "+beamclaw.UserMessage(testImage.err))
		}
		t.Fatalf("build the sandbox image: %v\n%s", testImage.err, tailOf(testImage.log, 4000))
	}
	return testImage.name
}

func tailOf(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// testEngine is a raw engine client for assertions.
func testEngine(t testing.TB) *client.Client {
	t.Helper()
	c, err := newEngine("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// shortTempDir is a temp dir with a short path (Unix socket paths are
// limited to 108 bytes).
func shortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "bcsb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// testOptions are Options for a test Manager with its own install id.
func testOptions(t testing.TB) Options {
	return Options{
		Image:           requireImage(t),
		InstallID:       "test-" + randomHex(4),
		BridgeSocketDir: shortTempDir(t),
		Timeout:         30 * time.Second,
		Environ:         func() []string { return []string{"PATH=/host/bin", "LANG=C.UTF-8", "HOME=/root"} },
		EnvAllowlist:    []string{"PATH", "HOME", "LANG", "TERM"},
		PII:             PIIOptions{Enabled: true, TokenizeScripts: true, TokenizeResults: true},
		Policy: PolicyOptions{DefaultAction: "allow", Rules: []PolicyRule{
			{Action: "allow", Tool: "read_file"}, {Action: "deny", Tool: "bash"}, {Action: "deny", Tool: "terminal"},
		}},
		Logger: slog.New(slog.DiscardHandler),
	}
}

// startManager builds a Manager from opts and runs its services until
// the test ends; at the end, no container of its install may be left.
func startManager(t testing.TB, opts Options) *Manager {
	t.Helper()
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	sup := supervise.New("test", supervise.Options{Backoff: time.Millisecond})
	for _, s := range m.Services() {
		sup.Add(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := sup.ServeBackground(ctx)
	t.Cleanup(func() {
		cancel()
		<-done
		left := countContainers(t, m.opts.InstallID)
		m.Close()
		if left != 0 {
			t.Errorf("%d containers of install %s left after the services stopped", left, m.opts.InstallID)
		}
	})
	return m
}

// countContainers counts an install's containers, running or not.
func countContainers(t testing.TB, install string) int {
	t.Helper()
	c := testEngine(t)
	list, err := c.ContainerList(context.Background(), client.ContainerListOptions{
		All: true, Filters: make(client.Filters).Add("label", LabelInstall+"="+install),
	})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

// mustRun runs a script and fails the test on a sandbox error.
func mustRun(t testing.TB, m *Manager, c Caller, lang, code string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := m.Run(ctx, c, Script{Language: lang, Code: code})
	if err != nil {
		t.Fatalf("run %s script: %v", lang, err)
	}
	return res
}

func caller(session string) Caller {
	return Caller{SessionID: session, AgentID: "default", UserID: "u1", Channel: "tui"}
}

func dump(r Result) string {
	return fmt.Sprintf("exit=%d sig=%d timedOut=%v killed=%v oom=%v\nstdout:\n%s\nstderr:\n%s",
		r.ExitCode, r.Signal, r.TimedOut, r.Killed, r.OOMKilled, r.Stdout, r.Stderr)
}
