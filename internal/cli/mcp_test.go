package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func TestMCPCommands(t *testing.T) {
	live := protocol.MCPList{Daemon: true, Servers: []protocol.MCPServer{
		{Name: "everything", Transport: "stdio", State: "ready", Tools: 12, Changed: []string{"everything__echo"}},
		{Name: "remote", Transport: "http", State: "failed", Restarts: 5, LastError: "connect: connection refused"},
	}}
	configured := protocol.MCPList{Servers: []protocol.MCPServer{{Name: "fs", Transport: "stdio", State: "not running"}}}
	tools := []protocol.MCPTool{
		{Name: "everything__echo", Server: "everything", Description: "Echoes back\nthe input", Changed: true},
		{Name: "everything__add", Server: "everything", Description: "Adds two numbers", Trusted: true},
	}
	imp := protocol.MCPImport{Servers: []string{"gh"}, YAML: "mcp:\n  servers:\n    - name: gh\n",
		Notes: []string{"server gh: env GITHUB_TOKEN is a credential: export GITHUB_TOKEN"}}
	tests := []struct {
		name       string
		args       []string
		list       protocol.MCPList
		imp        protocol.MCPImport
		err        error
		wantCode   int
		wantOut    []string
		wantErr    []string
		wantServer string
		wantWrite  bool
	}{
		{name: "list live", args: []string{"mcp", "list"}, list: live,
			wantOut: []string{"NAME        TRANSPORT  STATE              TOOLS  RESTARTS  LAST ERROR",
				"everything  stdio      ready (1 changed)  12     0         -",
				"remote      http       failed             0      5         connect: connection refused"}},
		{name: "list configured", args: []string{"mcp", "list"}, list: configured,
			wantOut: []string{"fs    stdio      not running"}, wantErr: []string{"no daemon is running"}},
		{name: "list none", args: []string{"mcp", "list"}, wantOut: []string{"no MCP servers configured"}},
		{name: "tools", args: []string{"mcp", "tools"},
			wantOut: []string{"everything__echo  everything  CHANGED  Echoes back the input", "everything__add   everything  trusted  Adds two numbers",
				"1 tool definition(s) CHANGED"}},
		{name: "tools of one server", args: []string{"mcp", "tools", "everything"}, wantServer: "everything",
			wantOut: []string{"everything__add"}},
		{name: "tools without daemon", args: []string{"mcp", "tools"}, err: errString("no beamclaw daemon is running"),
			wantCode: 1, wantErr: []string{"beamclaw: no beamclaw daemon is running"}},
		{name: "test ok", args: []string{"mcp", "test", "everything"}, wantServer: "everything",
			wantOut: []string{"everything: ok, 2 tools", "everything__echo"}, wantErr: []string{"connecting to everything..."}},
		{name: "test fails", args: []string{"mcp", "test", "broken"}, err: errString(`mcp server "broken": connect: exec: "nope": not found`),
			wantCode: 1, wantServer: "broken", wantErr: []string{`beamclaw: mcp server "broken": connect`}},
		{name: "test needs a name", args: []string{"mcp", "test"}, wantCode: 1},
		{name: "import prints", args: []string{"mcp", "import", "claude.json"}, imp: imp,
			wantOut: []string{"mcp:\n  servers:\n    - name: gh\n"}, wantErr: []string{"note: server gh: env GITHUB_TOKEN is a credential"}},
		{name: "import writes", args: []string{"mcp", "import", "claude.json", "--write"}, wantWrite: true,
			imp:     protocol.MCPImport{Servers: []string{"a", "b"}, Written: "/h/config.yaml"},
			wantOut: []string{"added 2 MCP server(s) to /h/config.yaml: a, b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeBackend{mcpList: tc.list, tools: tools, imp: tc.imp, err: tc.err}
			r := run(t, f, "", tc.args...)
			r.want(t, tc.wantCode, tc.wantOut, tc.wantErr)
			if f.lastServer != tc.wantServer || f.lastWrite != tc.wantWrite {
				t.Errorf("server %q write %v, want %q %v", f.lastServer, f.lastWrite, tc.wantServer, tc.wantWrite)
			}
		})
	}
}

func TestMCPJSON(t *testing.T) {
	r := run(t, &fakeBackend{}, "", "mcp", "tools", "--json")
	var got protocol.MCPTools
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Tools == nil {
		t.Fatalf("empty tools json: %v %q", err, r.stdout)
	}
	want := protocol.MCPList{Daemon: true, Servers: []protocol.MCPServer{{Name: "a", State: "ready"}}}
	r = run(t, &fakeBackend{mcpList: want}, "", "mcp", "list", "--json")
	var list protocol.MCPList
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("list json (-want +got):\n%s", diff)
	}
	if strings.Contains(r.stderr, "no daemon") {
		t.Errorf("live list says no daemon: %s", r.stderr)
	}
}
