package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
	"github.com/beamclaw/beamclaw-go/test/testenv"
)

// sandboxImage is built once per test binary with the real `beamclaw
// sandbox build` (quick when the image is current, as in CI's cache).
var sandboxImage struct {
	once sync.Once
	out  string
	code int
}

// requireSandbox builds the sandbox image through the binary, or skips
// loudly (fails under CI) when Docker or mmdebstrap is missing.
func requireSandbox(t *testing.T) {
	t.Helper()
	sandboxImage.once.Do(func() {
		h := newHome(t, "")
		r := h.runWithin(30*time.Minute, "sandbox", "build")
		sandboxImage.out, sandboxImage.code = r.stdout+r.stderr, r.code
	})
	if sandboxImage.code == 0 {
		return
	}
	out := sandboxImage.out
	if strings.Contains(out, "not reachable") || strings.Contains(out, "mmdebstrap") {
		testenv.Unavailable(t, "the code sandbox (the sandbox e2e tests did not run): "+strings.TrimSpace(out), "apt-get install docker.io mmdebstrap; start dockerd; beamclaw sandbox build")
	}
	t.Fatalf("beamclaw sandbox build failed:\n%s", out)
}

// sandboxRig is a daemon with the sandbox on, answering through the fake
// model's command rules ("call tool exec {...}").
func sandboxRig(t *testing.T, o rigOptions, sandboxYAML string) *chatRig {
	t.Helper()
	o.extra += "sandbox:\n  enabled: true\n" + sandboxYAML
	r := newChatRig(t, o)
	r.llm.SetDefault(fakellm.Rules)
	return r
}

// localConn is a terminal-channel session (the control socket: local,
// no approval needed for exec) of user.
func (r *chatRig) localConn(user string) *client.Conn {
	r.t.Helper()
	c := client.NewUnix(filepath.Join(r.h.dir, "run", "beamclaw.sock"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := c.Dial(ctx, "default", client.DialOptions{User: user, Channel: "tui"})
	if err != nil {
		r.t.Fatalf("dial the control socket: %v", err)
	}
	r.t.Cleanup(func() {
		_ = conn.Close()
		c.Close()
	})
	return conn
}

// execMessage is the user message that makes the fake model call exec.
func execMessage(t *testing.T, language, code string) string {
	t.Helper()
	b, err := json.Marshal(map[string]string{"language": language, "code": code})
	if err != nil {
		t.Fatal(err)
	}
	return "call tool exec " + string(b)
}

// execOutput is the exec tool's JSON result.
type execOutput struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	TimedOut bool   `json:"timed_out"`
}

// execResult finds the exec result the model was sent last.
func execResult(t *testing.T, llm *fakellm.Server) (execOutput, string) {
	t.Helper()
	res := llmToolResults(llmLast(t, llm))
	if len(res) == 0 {
		t.Fatal("the model got no tool result")
	}
	raw := res[len(res)-1]
	var out execOutput
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("exec result is not its JSON (%v): %s", err, raw)
	}
	return out, raw
}

// toolFrames lists the tools of a run's tool_start frames, in order.
func toolFrames(w wsRun) []string {
	var out []string
	for _, f := range w.frames {
		if f.Type == protocol.FrameToolStart {
			out = append(out, f.Tool)
		}
	}
	return out
}

// sandboxContainers lists the home's sandbox containers with the CLI.
func (h *home) sandboxContainers() protocol.SandboxContainers {
	h.t.Helper()
	r := h.must("sandbox", "list", "--json")
	var out protocol.SandboxContainers
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		h.t.Fatalf("sandbox list --json: %v: %s", err, r.stdout)
	}
	return out
}

// readFile reads a file or fails the test.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
