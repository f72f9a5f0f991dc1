package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
	"github.com/beamclaw/beamclaw-go/test/testenv"
)

// mountTmpfs mounts a small tmpfs on a new directory until the test ends
// (after the daemon on it stopped: cleanups run last in, first out).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Unavailable(t, "mounting a tmpfs needs root (CI runs as root)", "")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		testenv.Unavailable(t, fmt.Sprintf("mount tmpfs: %v: %s", err, out), "")
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill writes zeros into path until the file system is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill: %v", err)
			}
			_ = f.Sync()
			return
		}
	}
}

// smallDiskRig is a daemon whose home is a 4 MiB tmpfs (extra: more
// top-level YAML), started, with one turn of ana's stored.
func smallDiskRig(t *testing.T, extra string) (*chatRig, string) {
	t.Helper()
	dir := mountTmpfs(t, "4m")
	llm := fakellm.New(t)
	llm.SetDefault(fakellm.Rules)
	cfg := rigConfig(llm.URL(), rigOptions{gateway: "  rate_limit: {enabled: false}\n", extra: extra})
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &home{t: t, dir: dir, env: append(filteredEnv(), "BEAMCLAW_HOME="+dir)}
	t.Cleanup(h.cleanup)
	r := &chatRig{t: t, h: h, llm: llm, hc: &http.Client{}}
	r.start()
	r.chat("ana", "before the disk fills")
	return r, dir
}

// TestDiskFull: when the database cannot be written, turns are refused
// with 503 and Retry-After (not 502, which blames the model), one ERROR
// names the cause, readiness is false (/ready answers 503, /health still
// 200) and a metric counts the failures; once space is freed, the next
// turn is stored and readiness returns.
func TestDiskFull(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "beamclaw.log")
	r, dir := smallDiskRig(t, "obs:\n  log:\n    file: "+logFile+"\n")

	fill(t, filepath.Join(dir, "filler"))
	failed := 0
	for i := range 30 {
		code, body := r.post("ana", fmt.Sprintf("turn %d on a full disk %s", i, strings.Repeat("x", 2000)))
		switch code {
		case http.StatusOK:
		case http.StatusServiceUnavailable:
			failed++
		default:
			t.Fatalf("turn %d: %d %s (want 200 or 503)", i, code, body)
		}
	}
	if failed == 0 {
		t.Fatal("30 turns were all stored on a full disk")
	}
	if code, body := r.post("ana", strings.Repeat("y", 4000)); code == http.StatusServiceUnavailable {
		if !strings.Contains(body, "cannot be written") {
			t.Errorf("503 body does not say why: %s", body)
		}
	}
	resp, err := http.Post("http://"+r.addr+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"default","user":"ana","messages":[{"role":"user","content":"`+strings.Repeat("z", 4000)+`"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	if h := health(t, r.addr); h.Ready || h.Subsystems["store"].Ready {
		t.Errorf("readiness while the disk is full: %+v", h)
	}
	if code, body := get(t, "http://"+r.addr+"/ready"); code != http.StatusServiceUnavailable || !strings.Contains(body, `"ready":false`) {
		t.Errorf("/ready while the disk is full: %d %s, want 503 with the health body", code, body)
	}
	if code, _ := get(t, "http://"+r.addr+"/health"); code != http.StatusOK {
		t.Errorf("/health while the disk is full: %d, want 200 (liveness)", code)
	}
	if _, metrics := get(t, "http://"+r.addr+"/metrics"); !strings.Contains(metrics, "beamclaw_store_write_failures_total") ||
		strings.Contains(metrics, "beamclaw_store_write_failures_total 0\n") {
		t.Error("no store write failure counted in /metrics")
	}
	logs, _ := os.ReadFile(logFile)
	if n := strings.Count(string(logs), "the database cannot be written"); n != 1 {
		t.Errorf("%d ERROR lines about the database, want exactly 1:\n%s", n, logs)
	}
	if !strings.Contains(string(logs), "no space left on device") {
		t.Error("the ERROR line does not name the cause")
	}

	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	r.chat("ana", "after space was freed")
	if h := health(t, r.addr); !h.Ready {
		t.Errorf("not ready after a write succeeded: %+v", h)
	}
	if code, _ := get(t, "http://"+r.addr+"/ready"); code != http.StatusOK {
		t.Errorf("/ready after a write succeeded: %d", code)
	}
	logs, _ = os.ReadFile(logFile)
	if !strings.Contains(string(logs), "can be written again") {
		t.Error("recovery not logged")
	}
}

func health(t *testing.T, addr string) protocol.Health {
	t.Helper()
	_, body := get(t, "http://"+addr+"/health")
	var h protocol.Health
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatalf("/health: %v: %s", err, body)
	}
	return h
}

// TestHardening2DiskFullRefusedTurnLeavesNothing (issue 23, item 8): a turn
// refused with 503 on a full disk leaves nothing behind: once space is
// freed, the client's retry is the only copy of that message in history
// (once it was stored twice: "df-c", "df-c", "echo: df-c").
func TestHardening2DiskFullRefusedTurnLeavesNothing(t *testing.T) {
	r, dir := smallDiskRig(t, "")
	llm := r.llm
	fill(t, filepath.Join(dir, "filler"))
	refused := map[string]bool{}
	for i := range 20 {
		msg := fmt.Sprintf("df-%d %s", i, strings.Repeat("x", 3000))
		if code, _ := r.post("ana", msg); code == http.StatusServiceUnavailable {
			refused[msg] = true
		}
	}
	if len(refused) == 0 {
		t.Fatal("no turn was refused on a full disk")
	}
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	for msg := range refused {
		if code, body := r.post("ana", msg); code != http.StatusOK {
			t.Fatalf("the retry after space was freed: %d %s", code, body)
		}
		reqs := llm.Requests()
		last := reqs[len(reqs)-1]
		n := 0
		for _, m := range last.Messages {
			if m.Role == "user" && m.Content == msg {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("the retried message is %d times in the history the model saw, want once", n)
		}
	}
	// The whole history as the model last saw it: each refused turn once.
	reqs := llm.Requests()
	last := reqs[len(reqs)-1]
	for msg := range refused {
		n := 0
		for _, m := range last.Messages {
			if m.Role == "user" && m.Content == msg {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the refused turn %q is in the history %d times, want once (its retry)", msg[:5], n)
		}
	}
}
