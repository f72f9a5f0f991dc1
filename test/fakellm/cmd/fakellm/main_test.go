package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// start runs the command with args and returns its base URL and a stop
// function that waits for it to exit.
func start(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, pw)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("read banner: %v (run: %v)", err, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	url := strings.TrimSpace(strings.TrimPrefix(line, "fakellm listening on "))
	return url, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}
}

func post(t *testing.T, hc *http.Client, url, body string) string {
	t.Helper()
	res, err := hc.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

func TestRunRulesAndScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "replies.json")
	if err := os.WriteFile(script, []byte(`[{"text":"from the script file"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	url, stop := start(t, "-addr", "127.0.0.1:0", "-script", script)
	defer stop()
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	if body := post(t, hc, url+"/chat/completions", `{"messages":[{"role":"user","content":"x"}]}`); !strings.Contains(body, "from the script file") {
		t.Errorf("scripted answer = %s", body)
	}
	body := post(t, hc, url+"/chat/completions", `{"messages":[{"role":"user","content":"call tool now {}"}]}`)
	if !strings.Contains(body, `"tool_calls"`) || !strings.Contains(body, `"name":"now"`) {
		t.Errorf("rule answer = %s", body)
	}
}

func TestRunRejectsBadScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(script, []byte(`{not json`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"-script", script}, io.Discard); err == nil {
		t.Fatal("bad script accepted")
	}
}

// -stream-chunks streams each echo as that many chunks.
func TestSlowEcho(t *testing.T) {
	url, stop := start(t, "-addr", "127.0.0.1:0", "-echo", "-stream-chunks", "5", "-chunk-delay", "1ms")
	defer stop()
	res, err := http.Post(url+"/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if n := strings.Count(string(b), `"content":"w `); n != 4 || !strings.Contains(string(b), "echo: hi") {
		t.Errorf("%d content chunks:\n%s", n, b)
	}
}
