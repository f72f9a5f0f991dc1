// Command conformance-client is the client the official MCP conformance
// suite (@modelcontextprotocol/conformance) runs: a wrapper around the
// beamclaw binary ($BEAMCLAW_BIN). For the scenario in
// $MCP_CONFORMANCE_SCENARIO it writes a config with one http server at
// the URL given as the last argument (and the scenario's client
// settings from $MCP_CONFORMANCE_CONTEXT), runs `beamclaw mcp login`
// for the authorization scenarios, playing the browser by opening the
// URL the command prints, then `beamclaw mcp test` or `beamclaw mcp
// call`, opening any URL printed on the way (a step-up login).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-client:", err)
		os.Exit(1)
	}
}

// calls names the tool each scenario's server expects a call of.
var calls = map[string][2]string{
	"tools_call":                          {"add_numbers", `{"a": 5, "b": 3}`},
	"elicitation-sep1034-client-defaults": {"test_client_elicitation_defaults", `{}`},
	"sse-retry":                           {"test_reconnection", `{}`},
}

func run() error {
	if len(os.Args) < 2 {
		return fmt.Errorf("usage: %s SERVER_URL", os.Args[0])
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	bin := os.Getenv("BEAMCLAW_BIN")
	if bin == "" {
		return fmt.Errorf("BEAMCLAW_BIN is not set")
	}
	home, err := os.MkdirTemp("", "beamclaw-conformance-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	var ctx struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if c := os.Getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		_ = json.Unmarshal([]byte(c), &ctx)
	}
	oauth, cc := "", false
	switch {
	case scenario == "auth/basic-cimd":
		oauth = "        client_metadata_url: https://conformance-test.local/client-metadata.json\n"
	case strings.HasPrefix(scenario, "auth/client-credentials"):
		oauth, cc = fmt.Sprintf("        grant: client_credentials\n        client_id: %q\n        client_secret: {env: CONF_CLIENT_SECRET}\n", ctx.ClientID), true
	case ctx.ClientID != "":
		oauth = fmt.Sprintf("        client_id: %q\n        client_secret: {env: CONF_CLIENT_SECRET}\n", ctx.ClientID)
	}
	cfg := fmt.Sprintf("mcp:\n  servers:\n    - name: conf\n      transport: http\n      url: %q\n      timeout_seconds: 20\n", url)
	if oauth != "" {
		cfg += "      oauth:\n" + oauth
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return err
	}
	env := append(os.Environ(), "BEAMCLAW_HOME="+home, "CONF_CLIENT_SECRET="+ctx.ClientSecret)
	if strings.HasPrefix(scenario, "auth/") && !cc {
		if err := beamclaw(bin, env, "mcp", "login", "conf", "--no-browser"); err != nil {
			return err
		}
	}
	if c, ok := calls[scenario]; ok {
		return beamclaw(bin, env, "mcp", "call", "conf", c[0], c[1], "--elicit", "defaults")
	}
	if strings.HasPrefix(scenario, "auth/") {
		return beamclaw(bin, env, "mcp", "call", "conf", "test-tool", "{}", "--elicit", "defaults")
	}
	return beamclaw(bin, env, "mcp", "test", "conf")
}

// beamclaw runs the binary, copying its output to ours and opening every
// URL it prints on a line of its own, as a browser would.
func beamclaw(bin string, env []string, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var wg sync.WaitGroup
	for _, p := range []struct {
		r   io.Reader
		out io.Writer
	}{{stdout, os.Stdout}, {stderr, os.Stderr}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(p.r)
			for sc.Scan() {
				line := sc.Text()
				fmt.Fprintln(p.out, line)
				if strings.HasPrefix(line, "http://") || strings.HasPrefix(line, "https://") {
					browse(line)
				}
			}
		}()
	}
	wg.Wait()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("beamclaw %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// browse opens the authorization URL and follows its redirects to the
// loopback listener; what happens next is the command's to report.
func browse(u string) {
	go func() {
		resp, err := http.Get(u)
		if err != nil {
			fmt.Fprintln(os.Stderr, "conformance-client: browser:", err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
}
