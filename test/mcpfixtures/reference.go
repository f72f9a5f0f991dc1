package mcpfixtures

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/freeport"
	"github.com/beamclaw/beamclaw-go/test/testenv"
)

// The reference MCP servers from npm, installed into $BEAMCLAW_MCP_NPM_DIR
// (default ~/.cache/beamclaw-test/npm) on first use:
//
//	npm install --prefix "$DIR" @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem
var referencePackages = []string{"@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-filesystem"}

var npmInstall struct {
	once sync.Once
	dir  string
	err  error
}

// NPMDir is where the reference servers are installed.
func NPMDir() string {
	if d := os.Getenv("BEAMCLAW_MCP_NPM_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "beamclaw-test", "npm")
	}
	return filepath.Join(home, ".cache", "beamclaw-test", "npm")
}

// ReferenceBin returns the bin script of a reference server
// ("mcp-server-everything", "mcp-server-filesystem"), installing the
// packages on first use. Without node, npm or the packages the test skips
// loudly, and fails when CI=true.
func ReferenceBin(tb testing.TB, name string) string {
	tb.Helper()
	npmInstall.once.Do(func() {
		npmInstall.dir = NPMDir()
		if _, err := os.Stat(filepath.Join(npmInstall.dir, "node_modules", ".bin", "mcp-server-filesystem")); err == nil {
			return
		}
		if _, err := exec.LookPath("npm"); err != nil {
			npmInstall.err = fmt.Errorf("npm not found: %w", err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		args := append([]string{"install", "--no-audit", "--no-fund", "--prefix", npmInstall.dir}, referencePackages...)
		if out, err := exec.CommandContext(ctx, "npm", args...).CombinedOutput(); err != nil {
			npmInstall.err = fmt.Errorf("npm install: %w\n%s", err, out)
		}
	})
	bin := filepath.Join(npmInstall.dir, "node_modules", ".bin", name)
	_, statErr := os.Stat(bin)
	_, nodeErr := exec.LookPath("node")
	if npmInstall.err == nil && statErr == nil && nodeErr == nil {
		return bin
	}
	testenv.Unavailable(tb, fmt.Sprintf("reference MCP server %s (install: %v, bin: %v, node: %v)", name, npmInstall.err, statErr, nodeErr),
		"set BEAMCLAW_MCP_NPM_DIR or install node and npm")
	return ""
}

// StartEverythingHTTP runs server-everything over streamable HTTP on a free
// loopback port until the test ends, and returns its /mcp URL.
func StartEverythingHTTP(tb testing.TB) string {
	tb.Helper()
	bin := ReferenceBin(tb, "mcp-server-everything")
	ports, err := freeport.Ports(1)
	if err != nil {
		tb.Fatal(err)
	}
	port := fmt.Sprint(ports[0])
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start server-everything: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	tb.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			_ = c.Close()
			return "http://127.0.0.1:" + port + "/mcp"
		}
		select {
		case <-exited:
			tb.Fatalf("server-everything exited before listening on %s", port)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("server-everything not listening on %s: %v", port, err)
		}
	}
}
