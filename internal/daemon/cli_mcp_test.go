package daemon

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
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

	tools, err := MCPTest(ctx, env, "fx")
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
		if _, err := MCPTest(ctx, env, name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("test %s: %v, want %q", name, err, want)
		}
	}
}

func TestMCPListWithoutDaemonShowsConfig(t *testing.T) {
	env := testEnv(t, mcpConfig(
		"    - {name: a, command: run-a}\n    - {name: b, transport: http, url: \"http://127.0.0.1:1/\", enabled: false}\n"))
	list, err := MCPList(context.Background(), env)
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
	if _, err := MCPTools(context.Background(), env, ""); err == nil || !strings.Contains(err.Error(), "no beamclaw daemon is running") {
		t.Errorf("tools without daemon: %v", err)
	}
}

func TestMCPListAndToolsThroughDaemon(t *testing.T) {
	url := fixtureServer(t)
	env := testEnv(t, mcpConfig("    - {name: fx, transport: http, url: \""+url+"\", trust: true}\n"))
	_, stop := startDaemon(t, env)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var list protocol.MCPList
	for {
		var err error
		if list, err = MCPList(ctx, env); err != nil {
			t.Fatal(err)
		}
		if len(list.Servers) == 1 && list.Servers[0].State == "ready" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("fx never ready: %+v", list)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if !list.Daemon || list.Servers[0].Tools == 0 {
		t.Errorf("live list: %+v", list)
	}
	tools, err := MCPTools(ctx, env, "fx")
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != list.Servers[0].Tools || !tools[0].Trusted {
		t.Errorf("tools: %d (list says %d): %+v", len(tools), list.Servers[0].Tools, tools)
	}
	if _, err := MCPTools(ctx, env, "nope"); err == nil || err.Error() != `no MCP server named "nope" (see `+"`beamclaw mcp list`)" {
		t.Errorf("unknown server: %v", err)
	}
}
