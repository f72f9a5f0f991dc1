package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStartStatusHealthMetricsStop(t *testing.T) {
	h := newHome(t, "")
	s := h.start()
	code, body := get(t, "http://"+s.HTTPAddr+"/health")
	if code != 200 || !strings.Contains(body, `"ready":true`) {
		t.Fatalf("/health: %d %s", code, body)
	}
	code, body = get(t, "http://"+s.HTTPAddr+"/metrics")
	for _, want := range []string{"beamclaw_http_requests_total", "beamclaw_process_resident_memory_bytes", "beamclaw_obs_dropped_events_total"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s (%d)", want, code)
		}
	}
	for _, line := range strings.Split(body, "\n") {
		if name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE "), " "); name != "" && !strings.HasPrefix(name, "beamclaw_") {
			t.Errorf("metric %q is not prefixed beamclaw_", name)
			break
		}
	}
	r := h.must("status")
	if !strings.Contains(r.stdout, "running (pid") {
		t.Errorf("status: %s", r.stdout)
	}
	h.must("stop")
	if r := h.run("status"); r.code == 0 {
		t.Fatalf("status after stop exits 0: %s", r.stdout)
	}
	if !ended(s.PID) {
		t.Fatalf("pid %d still alive after stop", s.PID)
	}
	http.DefaultClient.CloseIdleConnections()
}

func TestSecondStartSaysAlreadyRunning(t *testing.T) {
	h := newHome(t, "")
	s := h.start()
	r := h.run("start")
	if r.code == 0 || !strings.Contains(r.stderr, "already running") {
		t.Fatalf("second start: exit %d, %s", r.code, r.stderr)
	}
	if s2, _ := h.status(); s2.PID != s.PID {
		t.Errorf("pid changed %d -> %d", s.PID, s2.PID)
	}
}

func TestOpenBindWithoutTokenRefused(t *testing.T) {
	h := newHome(t, "gateway:\n  http:\n    addr: \"0.0.0.0:0\"\n")
	r := h.run("start")
	if r.code == 0 {
		t.Fatal("started on 0.0.0.0 without a token")
	}
	if !strings.Contains(r.stderr, "without gateway.auth.token") {
		t.Errorf("reason not given: %s", r.stderr)
	}
	r = h.run("start", "--foreground")
	if r.code == 0 || !strings.Contains(r.stderr, "without gateway.auth.token") {
		t.Errorf("foreground: exit %d, %s", r.code, r.stderr)
	}
}

func TestTokenGuardsRoutes(t *testing.T) {
	h := newHome(t, "gateway:\n  http:\n    addr: \"0.0.0.0:0\"\n  auth:\n    token: {env: E2E_GATEWAY_TOKEN}\n")
	token := strings.Repeat("t0k3n", 8)
	h.env = append(h.env, "E2E_GATEWAY_TOKEN="+token)
	s := h.start()
	addr := strings.Replace(s.HTTPAddr, "[::]", "127.0.0.1", 1)
	addr = strings.Replace(addr, "0.0.0.0", "127.0.0.1", 1)
	if code, _ := get(t, "http://"+addr+"/health"); code != 200 {
		t.Errorf("/health needs no token, got %d", code)
	}
	if code, _ := get(t, "http://"+addr+"/metrics"); code != 401 {
		t.Errorf("/metrics without token: %d, want 401", code)
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("/metrics with token: %d", resp.StatusCode)
	}
	http.DefaultClient.CloseIdleConnections()
	if strings.Contains(h.logs(), token) {
		t.Error("the gateway token appears in the daemon's log")
	}
}

func TestUnknownConfigKeyNamesLine(t *testing.T) {
	h := newHome(t, "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\ncore:\n  autonomy_levle: full\n")
	for _, args := range [][]string{{"start"}, {"config", "check"}} {
		r := h.run(args...)
		if r.code == 0 {
			t.Fatalf("%v accepted an unknown key", args)
		}
		if !strings.Contains(r.stderr, "config.yaml:5: core.autonomy_levle: unknown key") {
			t.Errorf("%v: error does not name file:line:key: %s", args, r.stderr)
		}
	}
}

func TestKillNineThenStartAgain(t *testing.T) {
	h := newHome(t, "")
	s := h.start()
	if err := syscall.Kill(s.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !ended(s.PID) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "run", "beamclaw.sock")); err != nil {
		t.Logf("socket gone after kill -9: %v", err)
	}
	s2 := h.start()
	if s2.PID == s.PID {
		t.Fatal("same pid after restart")
	}
	if code, _ := get(t, "http://"+s2.HTTPAddr+"/health"); code != 200 {
		t.Fatalf("/health after restart: %d", code)
	}
	http.DefaultClient.CloseIdleConnections()
	h.must("stop")
}

func TestVersionAndCompletion(t *testing.T) {
	h := newHome(t, "")
	if r := h.must("version"); !strings.HasPrefix(r.stdout, "beamclaw ") || !strings.Contains(r.stdout, "go1.") {
		t.Errorf("version: %q", r.stdout)
	}
	if r := h.must("completion", "bash"); !strings.Contains(r.stdout, "beamclaw") {
		t.Error("no bash completion")
	}
	if r := h.run("nonsense"); r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
		t.Errorf("unknown command: exit %d, stderr %q (want one line)", r.code, r.stderr)
	}
}
