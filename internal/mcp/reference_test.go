package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/test/mcpfixtures"
)

// The reference servers come from npm through test/mcpfixtures
// (ReferenceBin): without node/npm or the packages these tests skip loudly,
// and fail when CI=true.

func TestReferenceEverythingStdio(t *testing.T) {
	bin := mcpfixtures.ReferenceBin(t, "mcp-server-everything")
	m := run(t, Options{Servers: []ServerConfig{{Name: "everything", Command: bin, Args: []string{"stdio"}, Enabled: true}}})
	waitReady(t, m, "everything")
	got, err := call(t, m, "everything__echo", `{"message":"hi"}`)
	if err != nil || got != "Echo: hi" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	got, err = call(t, m, "everything__get-sum", `{"a":2,"b":3}`)
	if err != nil || !strings.Contains(got, "is 5") {
		t.Errorf("get-sum = %q, %v", got, err)
	}
	for _, ti := range m.ToolInfos("everything") {
		if !ValidToolName(ti.Name) {
			t.Errorf("exposed name %q is invalid", ti.Name)
		}
	}
}

func TestReferenceFilesystemStdio(t *testing.T) {
	bin := mcpfixtures.ReferenceBin(t, "mcp-server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello world"), 0o600); err != nil {
		t.Fatal(err)
	}
	tools, err := Probe(context.Background(), ServerConfig{Name: "fs", Command: bin, Args: []string{dir}}, "")
	if err != nil || len(tools) == 0 {
		t.Fatalf("Probe: %d tools, %v", len(tools), err)
	}
	m := run(t, Options{Servers: []ServerConfig{{Name: "fs", Command: bin, Args: []string{dir}, Enabled: true}}})
	waitReady(t, m, "fs")
	got, err := call(t, m, "fs__read_text_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "hello.txt")))
	if err != nil || got != "hello world" {
		t.Errorf("read_text_file = %q, %v", got, err)
	}
	_, err = call(t, m, "fs__read_text_file", `{"path":"/etc/passwd"}`)
	if err == nil {
		t.Error("reading outside the allowed directory succeeded")
	}
}

func TestReferenceEverythingStreamableHTTP(t *testing.T) {
	url := mcpfixtures.StartEverythingHTTP(t)
	m := run(t, Options{Servers: []ServerConfig{{
		Name: "everything", Transport: TransportHTTP, URL: url, Enabled: true,
	}}})
	waitReady(t, m, "everything")
	got, err := call(t, m, "everything__echo", `{"message":"over http"}`)
	if err != nil || got != "Echo: over http" {
		t.Fatalf("echo = %q, %v", got, err)
	}
}
