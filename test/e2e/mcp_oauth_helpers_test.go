package e2e

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/oauthserver"
)

// mcpLogin runs `beamclaw mcp login SERVER --no-browser` and plays the
// browser: it opens the URL the command prints on a line of its own.
func (h *home) mcpLogin(server string) result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "mcp", "login", server, "--no-browser")
	cmd.Env = h.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	var stdout strings.Builder
	browsed := make(chan error, 1)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		stdout.WriteString(line + "\n")
		if strings.HasPrefix(line, "http://") || strings.HasPrefix(line, "https://") {
			go func() { browsed <- oauthserver.Browse(line) }()
		}
	}
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	code := 0
	if ee, ok := werr.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if werr != nil {
		h.t.Fatalf("mcp login: %v", werr)
	}
	select {
	case err := <-browsed:
		if err != nil {
			h.t.Errorf("browser: %v", err)
		}
	default:
		h.t.Errorf("mcp login printed no authorization URL:\n%s", stdout.String())
	}
	return result{stdout.String(), errb.String(), code}
}

// canaryIn lists the files under dir (the home: log, database) whose bytes
// contain canary.
func canaryIn(t *testing.T, dir, canary string) []string {
	t.Helper()
	var found []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSocket != 0 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), canary) {
			found = append(found, p)
		}
		return nil
	})
	return found
}
