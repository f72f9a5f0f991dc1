package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// mcpBuildFixture builds the mcp-go fixture server (test/mcpfixtures) into
// the test's temporary directory.
func mcpBuildFixture(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpfixture")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/beamclaw/beamclaw-go/test/mcpfixtures/cmd/mcpfixture").CombinedOutput()
	if err != nil {
		t.Fatalf("build mcpfixture: %v\n%s", err, out)
	}
	return bin
}

// fakeLLMHomeConfig is a config.yaml that points the daemon at the fake
// provider, with extra YAML appended (top-level sections other than core
// and gateway).
func fakeLLMHomeConfig(srv *fakellm.Server, core, extra string) string {
	return fmt.Sprintf(`core:
  default_provider: fake
  providers:
    fake: {base_url: %q, model: fake-model, max_retries: 0}
%sgateway:
  http:
    addr: "127.0.0.1:0"
%s`, srv.URL(), core, extra)
}

// mcpList runs `beamclaw mcp list --json`.
func (h *home) mcpList() protocol.MCPList {
	h.t.Helper()
	r := h.must("mcp", "list", "--json")
	var l protocol.MCPList
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
		h.t.Fatalf("mcp list --json: %v: %s", err, r.stdout)
	}
	return l
}

// mcpServer returns the named server of `mcp list`.
func (h *home) mcpServer(name string) protocol.MCPServer {
	h.t.Helper()
	for _, s := range h.mcpList().Servers {
		if s.Name == name {
			return s
		}
	}
	h.t.Fatalf("mcp list lacks server %s", name)
	return protocol.MCPServer{}
}

// waitMCPState polls `mcp list` until server name is in state and returns it.
func (h *home) waitMCPState(name, state string, timeout time.Duration) protocol.MCPServer {
	h.t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		last := h.mcpServer(name)
		if last.State == state {
			return last
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("mcp server %s: state %q (last error %q), want %q after %s\nlog:\n%s",
				name, last.State, last.LastError, state, timeout, h.logs())
		}
		<-tick.C
	}
}

// mcpChat sends one message through POST /v1/chat/completions (an
// ephemeral run of the default agent) and returns the answer's text.
func mcpChat(t *testing.T, addr, text string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"model":    "default",
		"messages": []map[string]string{{"role": "user", "content": text}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("chat %q: %v", text, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("chat %q: %d %s", text, resp.StatusCode, raw)
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Choices) == 0 {
		t.Fatalf("chat %q: bad answer %v: %s", text, err, raw)
	}
	return out.Choices[0].Message.Content
}

// mcpFindTool returns the tool named name of a provider request.
func mcpFindTool(req fakellm.Request, name string) (fakellm.Tool, bool) {
	for _, tl := range req.Tools {
		if tl.Name == name {
			return tl, true
		}
	}
	return fakellm.Tool{}, false
}

func mcpToolNames(req fakellm.Request) []string {
	out := make([]string, 0, len(req.Tools))
	for _, tl := range req.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// mcpToolMessage returns the last tool-role message of a provider request.
func mcpToolMessage(req fakellm.Request) (fakellm.Message, bool) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "tool" {
			return req.Messages[i], true
		}
	}
	return fakellm.Message{}, false
}

// mcpRequestFor returns the last provider request whose last user
// message is userText.
func mcpRequestFor(srv *fakellm.Server, userText string) (fakellm.Request, bool) {
	reqs := srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].LastUser() == userText {
			return reqs[i], true
		}
	}
	return fakellm.Request{}, false
}

// mcpHealth fetches /health and closes idle connections.
func mcpHealth(t *testing.T, addr string) (int, string) {
	t.Helper()
	defer http.DefaultClient.CloseIdleConnections()
	return get(t, "http://"+addr+"/health")
}
