package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// headerWatch counts the requests a test server gets and those carrying
// secret in any header.
type headerWatch struct {
	secret        string
	all, carrying atomic.Int32
}

func (w *headerWatch) see(r *http.Request) {
	w.all.Add(1)
	for _, vs := range r.Header {
		for _, v := range vs {
			if strings.Contains(v, w.secret) {
				w.carrying.Add(1)
				return
			}
		}
	}
}

// TestHardening2MCPRedirectKeepsSecrets (issue 23, item 3): an http MCP
// server that answers 307 to another origin (another port of 127.0.0.1)
// never makes the daemon send its configured secret header there, nor
// anything else: the server is failed with an error that names the
// redirect and its target, and the secret is nowhere in the home (log,
// database).
func TestHardening2MCPRedirectKeepsSecrets(t *testing.T) {
	secret := canarySecret(t, "mcpkey", 32)
	target := &headerWatch{secret: secret}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target.see(r)
		http.Error(w, "not here", http.StatusNotFound)
	}))
	t.Cleanup(other.Close)
	configured := &headerWatch{secret: secret}
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		configured.see(r)
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(first.Close)

	srv := fakellm.New(t)
	srv.SetDefault(fakellm.Rules)
	h := newHome(t, fakeLLMHomeConfig(srv, "", fmt.Sprintf(`mcp:
  max_restarts: 1
  restart_window_seconds: 120
  servers:
    - name: redir
      transport: http
      url: %q
      headers:
        X-Api-Key: {env: E2E_MCP_KEY}
      timeout_seconds: 5
`, first.URL+"/mcp")))
	h.env = append(h.env, "E2E_MCP_KEY="+secret)
	h.start()
	t.Cleanup(http.DefaultClient.CloseIdleConnections)

	st := h.waitMCPState("redir", "failed", 60*time.Second)
	t.Logf("the failed server says: %s", st.LastError)
	if configured.carrying.Load() == 0 {
		t.Errorf("the configured server never got the header (%d requests)", configured.all.Load())
	}
	if n := target.all.Load(); n != 0 {
		t.Errorf("the redirect's target got %d requests, %d carrying the secret", n, target.carrying.Load())
	}
	otherOrigin := strings.TrimPrefix(other.URL, "http://")
	if !strings.Contains(st.LastError, "redirect") || !strings.Contains(st.LastError, otherOrigin) {
		t.Errorf("the failed server's error %q does not name the redirect to %s", st.LastError, otherOrigin)
	}
	if strings.Contains(st.LastError, secret) {
		t.Errorf("the server's error carries the secret: %q", st.LastError)
	}
	if r := h.must("mcp", "list"); strings.Contains(r.stdout, secret) {
		t.Errorf("mcp list shows the secret:\n%s", r.stdout)
	}
	if strings.Contains(h.logs(), secret) {
		t.Error("the secret is in the daemon log")
	}
	h.must("stop")
	if found := canaryIn(t, h.dir, secret); len(found) > 0 {
		t.Errorf("the secret is in the clear in %v", found)
	}
}

// TestHardening2DamagedSecretsKeyKeepsDaemon (issue 23, item 9): a
// secrets.key damaged between two starts does not stop the daemon: only
// the MCP server whose login it seals is off (needs_login, saying why),
// `doctor` names the file and what to do, and once the file is moved
// aside a new login works without a restart.
func TestHardening2DamagedSecretsKeyKeepsDaemon(t *testing.T) {
	_, h := preRegisteredHome(t)
	h.must("start")
	if r := h.mcpLogin("web"); r.code != 0 {
		t.Fatalf("mcp login: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	h.waitMCPState("web", "ready", 60*time.Second)
	h.must("stop")

	keyFile := filepath.Join(h.dir, "secrets.key")
	if err := os.WriteFile(keyFile, []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := h.start()
	st := h.waitMCPState("web", "needs_login", 60*time.Second)
	if !strings.Contains(st.LastError, keyFile) {
		t.Errorf("needs_login does not say the key is the cause: %q", st.LastError)
	}
	if code, body := get(t, "http://"+s.HTTPAddr+"/health"); code != http.StatusOK {
		t.Errorf("health with a damaged key: %d %s", code, body)
	}
	http.DefaultClient.CloseIdleConnections()
	doc := h.run("doctor")
	if !strings.Contains(doc.stdout, keyFile) || !strings.Contains(doc.stdout, "move "+keyFile+" aside") {
		t.Errorf("doctor does not name the key file and the fix:\n%s", doc.stdout)
	}

	if err := os.Rename(keyFile, keyFile+".damaged"); err != nil {
		t.Fatal(err)
	}
	if r := h.mcpLogin("web"); r.code != 0 {
		t.Fatalf("mcp login after moving the key aside: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	h.waitMCPState("web", "ready", 60*time.Second)
}
