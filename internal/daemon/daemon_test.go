package daemon

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/client"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testEnv makes a BEAMCLAW_HOME with a config listening on a free port.
func testEnv(t *testing.T, configYAML string) Env {
	t.Helper()
	home := t.TempDir()
	if configYAML == "" {
		configYAML = "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\n"
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(configYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"BEAMCLAW_HOME": home, "HOME": home}
	return Env{Getenv: func(k string) string { return vars[k] }, Build: Build{Version: "test"}}
}

// startDaemon runs the daemon in-process until the test ends.
func startDaemon(t *testing.T, env Env) (Ready, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	readyc := make(chan Ready, 1)
	errc := make(chan error, 1)
	go func() { errc <- Run(ctx, env, io.Discard, func(r Ready) { readyc <- r }) }()
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
	return Ready{}, nil
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
	err := Run(context.Background(), env, io.Discard, nil)
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("second daemon: %v, want ErrRunning", err)
	}
}

func TestStoreHeldElsewhereIsClearError(t *testing.T) {
	env := testEnv(t, "")
	loc, _ := env.Locate()
	db, err := store.Open(filepath.Join(loc.Home, "beamclaw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = Run(context.Background(), env, io.Discard, nil)
	if !errors.Is(err, store.ErrInUse) {
		t.Fatalf("got %v, want ErrInUse", err)
	}
}

func TestRefusesOpenBindWithoutToken(t *testing.T) {
	env := testEnv(t, "gateway:\n  http:\n    addr: \"0.0.0.0:0\"\n")
	err := Run(context.Background(), env, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "without gateway.auth.token") {
		t.Fatalf("got %v", err)
	}
}

func TestDoctorReportsEachCheck(t *testing.T) {
	env := testEnv(t, "")
	checks := Doctor(context.Background(), env)
	names := map[string]string{}
	for _, c := range checks {
		names[c.Name] = c.Level
	}
	for _, want := range []string{"config", "home", "store", "docker", "port"} {
		if _, ok := names[want]; !ok {
			t.Errorf("doctor has no %q check: %v", want, names)
		}
	}
	if names["config"] != "ok" || names["store"] != "ok" {
		t.Errorf("doctor: %v", names)
	}
}
