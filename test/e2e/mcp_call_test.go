package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/oauthserver"
)

// TestMCPCallFromTheCLI (issue 16): `beamclaw mcp call` without a daemon
// (its own connection) and through the daemon's, printing text, images
// summarised and structured content, answering the server's question with
// the schema's defaults (--elicit defaults) or declining it, and exiting
// non-zero when the tool reports an error.
func TestMCPCallFromTheCLI(t *testing.T) {
	bin := mcpBuildFixture(t)
	h := newHome(t, fmt.Sprintf("gateway:\n  http:\n    addr: \"127.0.0.1:0\"\nmcp:\n  servers:\n    - name: fx\n      command: %q\n", bin))
	call := func(args ...string) result {
		t.Helper()
		return h.run(append([]string{"mcp", "call"}, args...)...)
	}
	for _, daemon := range []bool{false, true} {
		if daemon {
			h.start()
			h.waitMCPState("fx", "ready", 60*time.Second)
		}
		if r := call("fx", "echo", `{"message":"hi"}`); r.code != 0 || r.stdout != "Echo: hi\n" {
			t.Errorf("daemon=%v echo: exit %d %q %q", daemon, r.code, r.stdout, r.stderr)
		}
		if r := call("fx", "image"); r.code != 0 || !strings.Contains(r.stdout, "[image image/png, 12 bytes base64]") {
			t.Errorf("daemon=%v image: exit %d %q", daemon, r.code, r.stdout)
		}
		if r := call("fx", "fail"); r.code == 0 || !strings.Contains(r.stdout, "fixture failure") {
			t.Errorf("daemon=%v fail: exit %d %q", daemon, r.code, r.stdout)
		}
		r := call("fx", "ask", "{}", "--elicit", "defaults", "--json")
		var res protocol.MCPCallResult
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Text != `answer: accept {"name":"Ada"}` {
			t.Errorf("daemon=%v ask with defaults: %v %q %q", daemon, err, r.stdout, r.stderr)
		}
		if r := call("fx", "ask", "{}", "--elicit", "decline"); !strings.Contains(r.stdout, "answer: decline") {
			t.Errorf("daemon=%v ask declined: %q", daemon, r.stdout)
		}
		if r := call("fx", "nope"); r.code == 0 || !strings.Contains(r.stderr, `has no tool "nope"`) {
			t.Errorf("daemon=%v unknown tool: exit %d %q", daemon, r.code, r.stderr)
		}
	}
}

// preRegisteredHome is a home whose MCP server web is the fake
// authorization server's, with a pre-registered OAuth client (its secret
// through WEB_CLIENT_SECRET).
func preRegisteredHome(t *testing.T) (*oauthserver.Server, *home) {
	t.Helper()
	as := oauthserver.Start(t, oauthserver.Options{ClientID: "beamclaw-e2e", ClientSecret: "e2e-client-secret-0123456789", Canary: tokenCanary})
	h := newHome(t, fmt.Sprintf(`gateway:
  http:
    addr: "127.0.0.1:0"
mcp:
  servers:
    - name: web
      transport: http
      url: %q
      trust: true
      oauth:
        client_id: beamclaw-e2e
        client_secret: {env: WEB_CLIENT_SECRET}
`, as.URL()))
	h.env = append(h.env, "WEB_CLIENT_SECRET=e2e-client-secret-0123456789")
	return as, h
}

// TestMCPPreRegisteredClientLogin (issue 16): a server configured with a
// pre-registered OAuth client starts in needs_login, which `start` names
// with the fix; `mcp login` uses that client (client_secret_basic) and
// `mcp logout` forgets the login, which brings needs_login back.
func TestMCPPreRegisteredClientLogin(t *testing.T) {
	as, h := preRegisteredHome(t)
	r := h.must("start")
	if !strings.Contains(r.stdout, "warning: MCP server web needs a login: run `beamclaw mcp login web`") {
		t.Errorf("start does not name the login:\n%s", r.stdout)
	}
	if st := h.mcpServer("web"); st.State != "needs_login" || st.Restarts != 0 {
		t.Errorf("before the login: %+v", st)
	}
	if r := h.mcpLogin("web"); r.code != 0 {
		t.Fatalf("mcp login: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	h.waitMCPState("web", "ready", 60*time.Second)
	if as.Count("register") != 0 || as.Count("token:authorization_code") != 1 {
		t.Errorf("registrations %d, code exchanges %d: want the pre-registered client, once",
			as.Count("register"), as.Count("token:authorization_code"))
	}
	if r := h.run("mcp", "call", "web", "echo", `{"message":"pre-registered"}`); r.stdout != "Echo: pre-registered\n" {
		t.Errorf("mcp call through the daemon: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	h.must("mcp", "logout", "web")
	h.waitMCPState("web", "needs_login", 60*time.Second)
	h.must("stop")
	if found := canaryIn(t, h.dir, tokenCanary); len(found) > 0 {
		t.Errorf("a token is in the clear in %v", found)
	}
	if b, _ := os.ReadFile(h.dir + "/logs/beamclaw.log"); strings.Contains(string(b), "e2e-client-secret") {
		t.Error("the client secret is in the log")
	}
}
