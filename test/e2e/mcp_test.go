package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/mcpfixtures"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// mcpHome starts a daemon on the fake provider (fakellm.Rules) with the
// given mcp section and returns it with its HTTP address.
func mcpHome(t *testing.T, mcpYAML string) (*home, *fakellm.Server, string) {
	t.Helper()
	srv := fakellm.New(t)
	srv.SetDefault(fakellm.Rules)
	h := newHome(t, fakeLLMHomeConfig(srv, "", mcpYAML))
	s := h.start()
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	return h, srv, s.HTTPAddr
}

// mcpCheckEchoSchema checks that req offers name with a JSON Schema that has
// a "message" property.
func mcpCheckEchoSchema(t *testing.T, req fakellm.Request, name string) {
	t.Helper()
	tl, ok := mcpFindTool(req, name)
	if !ok {
		t.Fatalf("the provider's request lacks %s; tools: %v", name, mcpToolNames(req))
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(tl.Parameters, &schema); err != nil {
		t.Fatalf("%s parameters: %v: %s", name, err, tl.Parameters)
	}
	if schema.Type != "object" || schema.Properties["message"] == nil {
		t.Errorf("%s schema lacks the message property: %s", name, tl.Parameters)
	}
	if tl.Description == "" {
		t.Errorf("%s has no description", name)
	}
}

// mcpCallAndCheck makes the fake model call tool with args and checks that the
// tool's result text reaches the provider's next request and the answer.
func mcpCallAndCheck(t *testing.T, srv *fakellm.Server, addr, tool, args, wantResult string) {
	t.Helper()
	prompt := "call tool " + tool + " " + args
	answer := mcpChat(t, addr, prompt)
	var first, last fakellm.Request
	n := 0
	for _, r := range srv.Requests() {
		if r.LastUser() == prompt {
			if n == 0 {
				first = r
			}
			last, n = r, n+1
		}
	}
	if n < 2 {
		t.Fatalf("want a request with the tool call and one with its result, got %d; answer %q", n, answer)
	}
	if _, ok := mcpFindTool(first, tool); !ok {
		t.Errorf("the request that called %s did not offer it: %v", tool, mcpToolNames(first))
	}
	msg, ok := mcpToolMessage(last)
	if !ok || msg.Content != wantResult {
		t.Errorf("tool result in the provider's request = %q (found %v), want %q", msg.Content, ok, wantResult)
	}
	if want := "tool " + tool + " said: " + wantResult; answer != want {
		t.Errorf("answer = %q, want %q", answer, want)
	}
}

func TestMCPEverythingStdioToolsReachProvider(t *testing.T) {
	bin := mcpfixtures.ReferenceBin(t, "mcp-server-everything")
	h, srv, addr := mcpHome(t, fmt.Sprintf(`mcp:
  servers:
    - name: everything
      command: %q
      args: [stdio]
      trust: true
      timeout_seconds: 60
`, bin))
	st := h.waitMCPState("everything", "ready", 90*time.Second)
	if st.Tools == 0 {
		t.Errorf("everything is ready with no tools: %+v", st)
	}
	if answer := mcpChat(t, addr, "list your tools"); answer != "echo: list your tools" {
		t.Errorf("plain chat = %q", answer)
	}
	req, ok := mcpRequestFor(srv, "list your tools")
	if !ok {
		t.Fatal("the provider got no request for the plain chat")
	}
	mcpCheckEchoSchema(t, req, "everything__echo")
	mcpCallAndCheck(t, srv, addr, "everything__echo", `{"message": "hi there"}`, "Echo: hi there")

	r := h.must("mcp", "tools", "everything")
	if !strings.Contains(r.stdout, "everything__echo") {
		t.Errorf("mcp tools everything: %s", r.stdout)
	}
}

func TestMCPEverythingStreamableHTTP(t *testing.T) {
	url := mcpfixtures.StartEverythingHTTP(t)
	h, srv, addr := mcpHome(t, fmt.Sprintf(`mcp:
  servers:
    - name: everything
      transport: http
      url: %q
      trust: true
      timeout_seconds: 60
`, url))
	st := h.waitMCPState("everything", "ready", 60*time.Second)
	if st.Transport != "http" || st.Tools == 0 {
		t.Errorf("mcp list: %+v", st)
	}
	if answer := mcpChat(t, addr, "hello over http"); answer != "echo: hello over http" {
		t.Errorf("plain chat = %q", answer)
	}
	req, _ := mcpRequestFor(srv, "hello over http")
	mcpCheckEchoSchema(t, req, "everything__echo")
	mcpCallAndCheck(t, srv, addr, "everything__echo", `{"message": "over http"}`, "Echo: over http")
}

func TestMCPServerCrashMidCallRestarts(t *testing.T) {
	bin := mcpBuildFixture(t)
	// A long per-call timeout: a call that waited for it instead of failing
	// at the crash would answer "timed out", not "disconnected".
	h, srv, addr := mcpHome(t, fmt.Sprintf(`mcp:
  servers:
    - name: fx
      command: %q
      trust: true
      timeout_seconds: 300
`, bin))
	h.waitMCPState("fx", "ready", 60*time.Second)

	began := time.Now()
	answer := mcpChat(t, addr, "call tool fx__crash {}")
	t.Logf("the crashed call answered in %s", time.Since(began).Round(time.Millisecond))
	req, ok := mcpRequestFor(srv, "call tool fx__crash {}")
	msg, found := mcpToolMessage(req)
	if !ok || !found {
		t.Fatalf("the crash's tool error never reached the provider; answer %q", answer)
	}
	if !strings.Contains(msg.Content, `mcp server "fx" disconnected`) || strings.Contains(msg.Content, "timed out") {
		t.Errorf("tool error for the crashed call = %q, want a clear disconnect error", msg.Content)
	}
	t.Logf("the provider got the tool error %q", msg.Content)
	if !strings.HasPrefix(answer, "tool fx__crash said: ") {
		t.Errorf("answer after the crash = %q", answer)
	}

	st := h.waitMCPState("fx", "ready", 60*time.Second)
	if st.Restarts < 1 {
		t.Errorf("fx ready again but restarts = %d", st.Restarts)
	}
	row := mcpListRow(t, h, "fx")
	if len(row) < 5 || row[2] != "ready" || row[4] != strconv.Itoa(st.Restarts) {
		t.Errorf("mcp list row for fx = %q, want state ready and %d restarts", row, st.Restarts)
	}
	mcpCallAndCheck(t, srv, addr, "fx__echo", `{"message": "back again"}`, "Echo: back again")
	after, _ := mcpRequestFor(srv, `call tool fx__echo {"message": "back again"}`)
	for _, name := range []string{"fx__echo", "fx__add", "fx__crash"} {
		if _, ok := mcpFindTool(after, name); !ok {
			t.Errorf("after the restart the provider's request lacks %s: %v", name, mcpToolNames(after))
		}
	}

	code, body := mcpHealth(t, addr)
	if code != 200 || !strings.Contains(body, `"mcp"`) || !strings.Contains(body, "1 servers, 1 ready, 0 failed") {
		t.Errorf("/health after the restart: %d %s", code, body)
	}
}

// TestMCPUntrustedToolNeedsApproval: without trust an MCP tool needs an
// approval, which the OpenAI route cannot give: the call is refused and
// never reaches the server (its crash tool would have restarted it).
func TestMCPUntrustedToolNeedsApproval(t *testing.T) {
	bin := mcpBuildFixture(t)
	h, srv, addr := mcpHome(t, fmt.Sprintf(`mcp:
  servers:
    - name: wild
      command: %q
`, bin))
	h.waitMCPState("wild", "ready", 60*time.Second)
	answer := mcpChat(t, addr, "call tool wild__crash {}")
	req, _ := mcpRequestFor(srv, "call tool wild__crash {}")
	msg, found := mcpToolMessage(req)
	if !found || !strings.Contains(strings.ToLower(msg.Content), "approv") {
		t.Errorf("untrusted call: tool message %q (found %v), answer %q; want an approval refusal", msg.Content, found, answer)
	}
	if st := h.mcpServer("wild"); st.State != "ready" || st.Restarts != 0 {
		t.Errorf("the refused call reached the server: %+v", st)
	}
}

func TestMCPServerThatNeverInitializesIsMarkedFailed(t *testing.T) {
	bin := mcpBuildFixture(t)
	h, _, addr := mcpHome(t, fmt.Sprintf(`mcp:
  max_restarts: 1
  restart_window_seconds: 120
  servers:
    - name: stuck
      command: %q
      args: ["-mode=hang"]
      timeout_seconds: 1
`, bin))
	st := h.waitMCPState("stuck", "failed", 60*time.Second)
	if st.LastError == "" {
		t.Errorf("failed server reports no error: %+v", st)
	}
	code, body := mcpHealth(t, addr)
	if code != 200 || !strings.Contains(body, `"ready":true`) || !strings.Contains(body, "1 servers, 0 ready, 1 failed") {
		t.Errorf("/health with a failed MCP server: %d %s", code, body)
	}
	for _, text := range []string{"still there?", "and again"} {
		if answer := mcpChat(t, addr, text); answer != "echo: "+text {
			t.Errorf("chat %q with a failed MCP server = %q", text, answer)
		}
	}
	if row := mcpListRow(t, h, "stuck"); len(row) < 3 || row[2] != "failed" {
		t.Errorf("mcp list row for stuck = %q, want state failed", row)
	}
	if r := h.must("status"); !strings.Contains(r.stdout, "running (pid") {
		t.Errorf("status: %s", r.stdout)
	}
	pollUntil(t, 15*time.Second, "the hung server's processes to be gone", func() bool {
		return len(mcpProcessesOf(bin)) == 0
	})
}

// mcpListRow returns the fields of server's row in `beamclaw mcp list`
// (NAME TRANSPORT STATE TOOLS RESTARTS LAST ERROR).
func mcpListRow(t *testing.T, h *home, server string) []string {
	t.Helper()
	r := h.must("mcp", "list")
	lines := strings.Split(r.stdout, "\n")
	if len(lines) == 0 || !strings.Contains(lines[0], "RESTARTS") {
		t.Fatalf("mcp list has no RESTARTS column:\n%s", r.stdout)
	}
	for _, l := range lines[1:] {
		if f := strings.Fields(l); len(f) > 0 && f[0] == server {
			return f
		}
	}
	t.Fatalf("mcp list lacks %s:\n%s", server, r.stdout)
	return nil
}

// mcpProcessesOf lists the pids whose command line starts with bin.
func mcpProcessesOf(bin string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && strings.HasPrefix(string(b), bin+"\x00") {
			out = append(out, filepath.Base(d))
		}
	}
	return out
}
