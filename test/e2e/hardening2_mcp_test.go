package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
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
