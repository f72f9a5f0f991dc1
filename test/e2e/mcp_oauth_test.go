package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
	"github.com/beamclaw/beamclaw-go/test/oauthserver"
)

const tokenCanary = "CANARYMCPTOKEN"

// TestMCPOAuthLoginThroughDaemon (issue 16): an http MCP server behind a
// local OAuth server. Without a login the server is needs_login (no
// restart loop, the fix named in start, list and doctor); `mcp login`
// while the daemon runs makes it ready without a restart; a tool call in
// a chat turn works with tokens refreshed before they expire; a restart
// keeps the login; revoked tokens (the refresh token refused) give
// needs_login again, not restarts; no token is ever in the log, the
// metrics or the database file in the clear.
func TestMCPOAuthLoginThroughDaemon(t *testing.T) {
	as := oauthserver.Start(t, oauthserver.Options{TokenTTL: 30 * time.Second, Scope: "mcp:tools", Canary: tokenCanary})
	srv := fakellm.New(t)
	srv.SetDefault(fakellm.Rules)
	h := newHome(t, fakeLLMHomeConfig(srv, "", fmt.Sprintf(`mcp:
  servers:
    - name: web
      transport: http
      url: %q
      trust: true
`, as.URL())))
	addr := h.start().HTTPAddr
	st := h.waitMCPState("web", "needs_login", 60*time.Second)
	if st.Restarts != 0 || !strings.Contains(st.LastError, "beamclaw mcp login web") {
		t.Errorf("needs_login status = %+v", st)
	}
	if r := h.must("mcp", "list"); !strings.Contains(r.stdout, "needs_login") || !strings.Contains(r.stdout, "401") ||
		!strings.Contains(r.stdout, "run `beamclaw mcp login web`") {
		t.Errorf("mcp list does not say why and what to do:\n%s", r.stdout)
	}
	if r := h.run("doctor"); !strings.Contains(r.stdout, "beamclaw mcp login web") {
		t.Errorf("doctor does not name the login:\n%s", r.stdout)
	}

	if r := h.mcpLogin("web"); r.code != 0 || !strings.Contains(r.stdout, "logged in to web") {
		t.Fatalf("mcp login: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	h.waitMCPState("web", "ready", 60*time.Second)
	mcpCallAndCheck(t, srv, addr, "web__echo", `{"message": "through oauth"}`, "Echo: through oauth")
	if as.Count("token:refresh_token") == 0 {
		t.Error("a token within the refresh margin was used without a refresh")
	}
	mcpCallAndCheck(t, srv, addr, "web__echo", `{"message": "refreshed"}`, "Echo: refreshed")

	h.must("stop")
	addr = h.start().HTTPAddr
	h.waitMCPState("web", "ready", 60*time.Second)
	mcpCallAndCheck(t, srv, addr, "web__echo", `{"message": "after restart"}`, "Echo: after restart")

	// The server ends the access token early: the 401 makes the client
	// refresh and retry, and the call still works.
	refreshes := as.Count("token:refresh_token")
	as.ExpireAccessTokens()
	mcpCallAndCheck(t, srv, addr, "web__echo", `{"message": "expired token"}`, "Echo: expired token")
	if as.Count("token:refresh_token") == refreshes {
		t.Error("an access token the server expired was not refreshed")
	}
	if st := h.mcpServer("web"); st.State != "ready" {
		t.Errorf("after the refresh: %+v", st)
	}

	as.RevokeAll()
	prompt := `call tool web__echo {"message": "revoked"}`
	mcpChat(t, addr, prompt)
	req, _ := mcpRequestFor(srv, prompt)
	if msg, ok := mcpToolMessage(req); !ok || !strings.Contains(msg.Content, "beamclaw mcp login web") {
		t.Errorf("the call with revoked tokens answered %q (found %v)", msg.Content, ok)
	}
	st = h.waitMCPState("web", "needs_login", 60*time.Second)
	if st.Restarts != 0 {
		t.Errorf("revoked tokens made restarts: %+v", st)
	}
	_, metrics := mcpHealth(t, addr)
	_, m := get(t, "http://"+addr+"/metrics")
	if strings.Contains(metrics+m, tokenCanary) {
		t.Error("a token is in /health or /metrics")
	}
	h.must("stop")
	if found := canaryIn(t, h.dir, tokenCanary); len(found) > 0 {
		t.Errorf("a token is in the clear in %v", found)
	}
	if p := as.Problems(); len(p) > 0 {
		for _, x := range p {
			if !strings.Contains(x, "refresh_token grant was refused") {
				t.Errorf("the authorization server saw a client mistake: %s", x)
			}
		}
	}
}
