package mcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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
	tools, err := Probe(context.Background(), ServerConfig{Name: "fs", Command: bin, Args: []string{dir}}, Options{})
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

// TestMCPGoExampleEverything builds mcp-go's own "everything" example
// server from the module cache and talks to it over stdio.
func TestMCPGoExampleEverything(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcp-go-everything")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/mark3labs/mcp-go/examples/everything").CombinedOutput()
	if err != nil {
		t.Fatalf("build mcp-go's everything example: %v\n%s", err, out)
	}
	m := run(t, Options{Servers: []ServerConfig{{Name: "gox", Command: bin, Args: []string{"-t", "stdio"}, Enabled: true}}})
	waitReady(t, m, "gox")
	got, err := call(t, m, "gox__echo", `{"message":"from the module cache"}`)
	if err != nil || got != "Echo: from the module cache" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	got, err = call(t, m, "gox__add", `{"a":2,"b":40}`)
	if err != nil || !strings.Contains(got, "42") {
		t.Errorf("add = %q, %v", got, err)
	}
}
