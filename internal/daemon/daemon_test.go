package daemon

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/admin"
	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/procguard"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/mcpfixtures"
)

func TestMain(m *testing.M) {
	procguard.InitIfAsked() // the daemon and doctor start this binary as a tool process's init
	goleak.VerifyTestMain(m)
}

// testEnv makes a BEAMCLAW_HOME with a config listening on a free port,
// and the daemon Options and the Admin of that home.
func testEnv(t *testing.T, configYAML string) Options {
	t.Helper()
	home := t.TempDir()
	if configYAML == "" {
		configYAML = "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\n"
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(configYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"BEAMCLAW_HOME": home, "HOME": home}
	return Options{Getenv: func(k string) string { return vars[k] }, Build: beamclaw.Build{Version: "test"}, LogOut: io.Discard}
}

// adminOf is the CLI's view of the daemon's home.
func adminOf(o Options) *admin.Admin {
	return admin.New(admin.Options{Getenv: o.Getenv, Build: o.Build})
}

// startDaemon runs the daemon in-process until the test ends.
func startDaemon(t *testing.T, env Options) (beamclaw.Ready, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	readyc := make(chan beamclaw.Ready, 1)
	errc := make(chan error, 1)
	env.Ready = func(r beamclaw.Ready) { readyc <- r }
	go func() { errc <- Run(ctx, env) }()
	select {
	case r := <-readyc:
		return r, func() error { cancel(); return <-errc }
	case err := <-errc:
		cancel()
		t.Fatalf("daemon did not start: %v", err)
	case <-time.After(20 * time.Second):
		cancel()
		t.Fatal("daemon not ready")
	}
	return beamclaw.Ready{}, nil
}

func TestDaemonServesAndStopsCleanly(t *testing.T) {
	env := testEnv(t, "")
	r, stop := startDaemon(t, env)
	resp, err := http.Get("http://" + r.HTTPAddr + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"ready":true`) {
		t.Fatalf("/health: %d %s", resp.StatusCode, body)
	}
	c := client.NewUnix(r.Socket)
	st, err := c.Status(context.Background())
	if err != nil || st.PID != os.Getpid() || st.Version != "test" {
		t.Fatalf("status %+v, %v", st, err)
	}
	fi, err := os.Stat(r.Socket)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, %v", fi.Mode().Perm(), err)
	}
	c.Close()
	http.DefaultClient.CloseIdleConnections()
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if _, err := os.Stat(r.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
}

func TestSecondDaemonRefused(t *testing.T) {
	env := testEnv(t, "")
	_, stop := startDaemon(t, env)
	defer func() { _ = stop() }()
	err := Run(context.Background(), env)
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("second daemon: %v, want ErrRunning", err)
	}
}

func TestStoreHeldElsewhereIsClearError(t *testing.T) {
	env := testEnv(t, "")
	loc, _ := adminOf(env).Locate()
	db, err := store.Open(filepath.Join(loc.Home, "beamclaw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = Run(context.Background(), env)
	if !errors.Is(err, store.ErrInUse) {
		t.Fatalf("got %v, want ErrInUse", err)
	}
}

func TestRefusesOpenBindWithoutToken(t *testing.T) {
	env := testEnv(t, "gateway:\n  http:\n    addr: \"0.0.0.0:0\"\n")
	err := Run(context.Background(), env)
	if err == nil || !strings.Contains(err.Error(), "without gateway.auth.token") {
		t.Fatalf("got %v", err)
	}
}

func TestDoctorReportsEachCheck(t *testing.T) {
	env := testEnv(t, "")
	checks := adminOf(env).Doctor(context.Background())
	names := map[string]string{}
	for _, c := range checks {
		names[c.Name] = c.Level
	}
	for _, want := range []string{"config", "home", "store", "sandbox", "port"} {
		if _, ok := names[want]; !ok {
			t.Errorf("doctor has no %q check: %v", want, names)
		}
	}
	if names["config"] != "ok" || names["store"] != "ok" {
		t.Errorf("doctor: %v", names)
	}
}

func mcpConfig(servers string) string {
	return "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\nmcp:\n  servers:\n" + servers
}

// fixtureServer serves the MCP fixture over streamable HTTP until the
// test ends.
func fixtureServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(mcpserver.NewStreamableHTTPServer(mcpfixtures.NewServer(mcpfixtures.Options{})))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestMCPListAndToolsThroughDaemon(t *testing.T) {
	url := fixtureServer(t)
	opts := testEnv(t, mcpConfig("    - {name: fx, transport: http, url: \""+url+"\", trust: true}\n"))
	_, stop := startDaemon(t, opts)
	env := adminOf(opts)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var list protocol.MCPList
	for {
		var err error
		if list, err = env.MCPList(ctx); err != nil {
			t.Fatal(err)
		}
		if len(list.Servers) == 1 && list.Servers[0].State == "ready" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("fx never ready: %+v", list)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if !list.Daemon || list.Servers[0].Tools == 0 {
		t.Errorf("live list: %+v", list)
	}
	tools, err := env.MCPTools(ctx, "fx")
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != list.Servers[0].Tools || !tools[0].Trusted {
		t.Errorf("tools: %d (list says %d): %+v", len(tools), list.Servers[0].Tools, tools)
	}
	if _, err := env.MCPTools(ctx, "nope"); err == nil || err.Error() != `no MCP server named "nope" (see `+"`beamclaw mcp list`)" {
		t.Errorf("unknown server: %v", err)
	}
}

// syncBuffer is a log sink the daemon writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// With sandbox.enabled and no engine, the daemon starts, says why once at
// WARN with the fix, and /health's sandbox subsystem says exec is off (the
// daemon stays ready: everything else works).
func TestSandboxWithoutDockerIsReportedNotFatal(t *testing.T) {
	env := testEnv(t, "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\nsandbox:\n  enabled: true\n  bridge_socket_dir: /tmp/bc-daemon-test\n")
	getenv := env.Getenv
	env.Getenv = func(k string) string {
		if k == "DOCKER_HOST" {
			return "unix:///nonexistent/docker.sock"
		}
		return getenv(k)
	}
	logs := &syncBuffer{}
	env.LogOut = logs
	r, stop := startDaemon(t, env)
	defer func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	}()
	h, err := client.NewTCP("http://"+r.HTTPAddr, "").Health(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sb := h.Subsystems["sandbox"]
	if !h.Ready || !strings.HasPrefix(sb.Detail, "exec is off: ") || !strings.Contains(sb.Detail, "start dockerd") {
		t.Errorf("health %+v", h)
	}
	if n := strings.Count(logs.String(), "the exec tool is not offered"); n != 1 {
		t.Errorf("%d warnings about exec, want 1:\n%s", n, logs.String())
	}
}
