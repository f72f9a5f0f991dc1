package mcp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMCPServersJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []ImportedServer
		wantErr string
	}{
		{
			name: "claude desktop",
			in: `{"mcpServers": {
				"filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
				"github": {"command": "docker", "args": ["run", "--token=abc123"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x", "LOG_LEVEL": "debug"}}
			}}`,
			want: []ImportedServer{
				{Name: "filesystem", Transport: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, Enabled: true},
				{Name: "github", Transport: "stdio", Command: "docker", Args: []string{"run", "--token=abc123"},
					Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x", "LOG_LEVEL": "debug"}, Enabled: true,
					SecretEnv: []string{"GITHUB_PERSONAL_ACCESS_TOKEN"}, SecretArgs: []int{1}},
			},
		},
		{
			name: "http, sse and disabled",
			in: `{"servers": {
				"remote": {"type": "http", "url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer t", "Accept-Language": "en"}},
				"old": {"url": "https://old.example/sse", "type": "sse", "disabled": true}
			}}`,
			want: []ImportedServer{
				{Name: "old", Transport: "http", URL: "https://old.example/sse", Enabled: false,
					Warnings: []string{"legacy SSE transport: beamclaw speaks streamable HTTP only; check the server's URL"}},
				{Name: "remote", Transport: "http", URL: "https://mcp.example/mcp", Enabled: true,
					Headers:       map[string]string{"Authorization": "Bearer t", "Accept-Language": "en"},
					SecretHeaders: []string{"Authorization"}},
			},
		},
		{name: "not json", in: `{`, wantErr: "mcpServers json"},
		{name: "no servers key", in: `{"other": {}}`, wantErr: `no "mcpServers" object`},
		{name: "every bad entry reported", in: `{"mcpServers": {"a": {}, "b": {"type": "stdio"}, "c": 3}}`,
			wantErr: `server "a"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseMCPServersJSON(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	_, err := ParseMCPServersJSON(strings.NewReader(`{"mcpServers": {"a": {}, "b": {"type": "stdio"}, "c": 3}}`))
	for _, name := range []string{`"a"`, `"b"`, `"c"`} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not report server %s", err, name)
		}
	}
}

func FuzzParseMCPServersJSON(f *testing.F) {
	f.Add(`{"mcpServers":{"a":{"command":"x","args":["--api-key=1"],"env":{"K":"sk-1"}}}}`)
	f.Add(`{"servers":{"b":{"url":"http://h/mcp","headers":{"Cookie":"c"}}}}`)
	f.Add(`{"mcpServers":{"":{"command":"x"}}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseMCPServersJSON(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, s := range got {
			if s.Name == "" || (s.Transport == TransportStdio && s.Command == "") || (s.Transport == TransportHTTP && s.URL == "") {
				t.Fatalf("accepted an incomplete server: %+v", s)
			}
		}
	})
}
