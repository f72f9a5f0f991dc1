package admin

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/freeport"
	"github.com/beamclaw/beamclaw-go/test/mcpfixtures"
)

// fixtureServer serves the MCP fixture over streamable HTTP until the
// test ends.
func fixtureServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(mcpserver.NewStreamableHTTPServer(mcpfixtures.NewServer(mcpfixtures.Options{})))
	t.Cleanup(srv.Close)
	return srv.URL
}

// closedURL is an http URL nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	addr, err := freeport.Addr()
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + addr + "/mcp"
}

func mcpConfig(servers string) string {
	return "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\nmcp:\n  servers:\n" + servers
}

func TestMCPTestProbesWithoutDaemon(t *testing.T) {
	url := fixtureServer(t)
	env := testEnv(t, mcpConfig(
		"    - {name: fx, transport: http, url: \""+url+"\"}\n"+
			"    - {name: dead, transport: http, url: \""+closedURL(t)+"\", timeout_seconds: 2}\n"+
			"    - {name: keyed, transport: stdio, command: nope, env: {TOKEN: {env: FX_TOKEN_UNSET}}}\n"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	tools, err := env.MCPTest(ctx, "fx")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.Name] = true
		if tl.Server != "fx" {
			t.Errorf("tool %s of server %q", tl.Name, tl.Server)
		}
	}
	for _, want := range []string{"fx__echo", "fx__add", "fx__mutate"} {
		if !names[want] {
			t.Errorf("probe lacks %s: %v", want, names)
		}
	}
	for name, want := range map[string]string{
		"dead":  `mcp server "dead"`,
		"nope":  `no MCP server named "nope"`,
		"keyed": "FX_TOKEN_UNSET is not set",
	} {
		if _, err := env.MCPTest(ctx, name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("test %s: %v, want %q", name, err, want)
		}
	}
}

func TestMCPListWithoutDaemonShowsConfig(t *testing.T) {
	env := testEnv(t, mcpConfig(
		"    - {name: a, command: run-a}\n    - {name: b, transport: http, url: \"http://127.0.0.1:1/\", enabled: false}\n"))
	list, err := env.MCPList(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := protocol.MCPList{Servers: []protocol.MCPServer{
		{Name: "a", Transport: "stdio", State: "not running"},
		{Name: "b", Transport: "http", State: "disabled"},
	}}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if _, err := env.MCPTools(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "no beamclaw daemon is running") {
		t.Errorf("tools without daemon: %v", err)
	}
}
