package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/testenv"
)

// The third-party A2A tools the suites drive: a2a-go's `a2a` CLI (client
// and echo server) and npm @a2a-js/sdk.

// a2aCLI builds a2a-go's `a2a` command once into the test cache (its
// version is go.mod's) and returns its path, or skips (fails under CI).
var a2aCLIOnce struct {
	sync.Once
	path string
	err  string
}

func a2aCLI(t *testing.T) string {
	t.Helper()
	a2aCLIOnce.Do(func() {
		dir := os.Getenv("BEAMCLAW_A2A_CLI_DIR")
		if dir == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				a2aCLIOnce.err = "no cache dir: " + err.Error()
				return
			}
			dir = filepath.Join(cache, "beamclaw-test", "a2a-cli-v2.3.1")
		}
		bin := filepath.Join(dir, "a2a")
		if _, err := os.Stat(bin); err == nil {
			a2aCLIOnce.path = bin
			return
		}
		out, err := exec.Command("go", "build", "-o", bin, "github.com/a2aproject/a2a-go/v2/cmd/a2a").CombinedOutput()
		if err != nil {
			a2aCLIOnce.err = "build a2a-go's a2a CLI: " + err.Error() + "\n" + string(out)
			return
		}
		a2aCLIOnce.path = bin
	})
	if a2aCLIOnce.path == "" {
		testenv.Unavailable(t, "a2a-go's `a2a` CLI is unavailable: "+a2aCLIOnce.err, "")
	}
	return a2aCLIOnce.path
}

// runA2ACLI runs the a2a CLI with args and returns its output.
func runA2ACLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, a2aCLI(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// startA2AEcho runs `a2a serve --echo` on a free loopback port and returns
// its base URL; it is stopped at test end.
func startA2AEcho(t *testing.T) string {
	t.Helper()
	bin := a2aCLI(t)
	cmd := exec.Command(bin, "serve", "--echo", "--port", "0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("a2a serve --echo: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "Listening on "); ok {
				lines <- addr
			}
		}
	}()
	select {
	case addr := <-lines:
		return "http://" + strings.TrimSpace(addr)
	case <-time.After(30 * time.Second):
		t.Fatal("a2a serve --echo did not say where it listens")
		return ""
	}
}

// a2aNodeModules is the node_modules holding npm @a2a-js/sdk (installed
// by scripts/test-deps.sh, which make test runs), or skips (fails under CI).
func a2aNodeModules(t *testing.T) string {
	t.Helper()
	dir := testCacheDir("BEAMCLAW_A2A_NPM_DIR", "a2a-npm")
	nm := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(nm, "@a2a-js", "sdk", "package.json")); err != nil {
		testenv.Unavailable(t, "npm @a2a-js/sdk in "+dir, "npm install --prefix "+dir+" @a2a-js/sdk@1.3.0")
	}
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Unavailable(t, "node is not installed", "")
	}
	return nm
}
