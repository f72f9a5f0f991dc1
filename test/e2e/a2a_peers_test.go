package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// a2a-go's `a2a` CLI (nobody here wrote it) discovers the agent, sends,
// streams, lists and reads tasks back.
func TestA2A_ThirdPartyCLI(t *testing.T) {
	r := newA2ARig(t, rigOptions{}, "")
	r.start()
	auth := "Bearer " + a2aGatewayToken
	out, err := runA2ACLI(t, "discover", r.a2aURL())
	if err != nil || !strings.Contains(out, "Name:         default") || !strings.Contains(out, "JSONRPC      "+r.a2aURL()+"/a2a") {
		t.Fatalf("a2a discover: %v\n%s", err, out)
	}
	out, err = runA2ACLI(t, "send", "--auth", auth, r.a2aURL(), "hello from the cli")
	if err != nil || !strings.Contains(out, "Status:   completed") || !strings.Contains(out, "[answer] echo: hello from the cli") {
		t.Fatalf("a2a send: %v\n%s", err, out)
	}
	out, err = runA2ACLI(t, "send", "--stream", "--auth", auth, r.a2aURL(), "streamed from the cli")
	if err != nil || !strings.Contains(out, "[status] working") || !strings.Contains(out, "[status] completed: echo: streamed from the cli") {
		t.Fatalf("a2a send --stream: %v\n%s", err, out)
	}
	out, err = runA2ACLI(t, "-o", "json", "list", "tasks", "--auth", auth, r.a2aURL())
	var list struct {
		Tasks []struct {
			ID string `json:"id"`
		} `json:"tasks"`
	}
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || len(list.Tasks) != 2 {
		t.Fatalf("a2a list tasks: %v\n%s", err, out)
	}
	out, err = runA2ACLI(t, "get", "task", "--auth", auth, r.a2aURL(), list.Tasks[1].ID)
	if err != nil || !strings.Contains(out, "echo: hello from the cli") {
		t.Fatalf("a2a get task: %v\n%s", err, out)
	}
	out, err = runA2ACLI(t, "send", "--transport", "rest", "--auth", auth, r.a2aURL()+"/a2a/rest", "over http+json")
	if err != nil || !strings.Contains(out, "echo: over http+json") {
		t.Fatalf("a2a send over HTTP+JSON: %v\n%s", err, out)
	}
	if out, err = runA2ACLI(t, "send", r.a2aURL(), "no token"); err == nil {
		t.Fatalf("a2a send without a token succeeded:\n%s", out)
	}
}

// npm @a2a-js/sdk's client (nobody here wrote it) discovers, sends,
// streams, reads back and lists.
func TestA2A_JSClient(t *testing.T) {
	nm := a2aNodeModules(t)
	r := newA2ARig(t, rigOptions{}, "")
	r.start()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "testdata/a2a-js/client.cjs", r.a2aURL(), a2aGatewayToken, "hello from js")
	cmd.Env = append(filteredEnv(), "NODE_PATH="+nm)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	var got struct {
		Card struct {
			Name      string `json:"name"`
			Streaming bool   `json:"streaming"`
		} `json:"card"`
		Task     struct{ ID, State, Answer string } `json:"task"`
		Streamed []string                           `json:"streamed"`
		Get      struct{ ID, State string }         `json:"get"`
		Listed   []string                           `json:"listed"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	n := len(got.Streamed)
	if got.Card.Name != "default" || !got.Card.Streaming || got.Task.State != "TASK_STATE_COMPLETED" ||
		got.Task.Answer != "echo: hello from js" || got.Get.ID != got.Task.ID || got.Get.State != "TASK_STATE_COMPLETED" ||
		n < 4 || got.Streamed[0] != "task:TASK_STATE_SUBMITTED" || got.Streamed[n-1] != "status:TASK_STATE_COMPLETED" ||
		len(got.Listed) != 2 || got.Listed[1] != got.Task.ID {
		t.Fatalf("the JS client saw %s", out)
	}
}

// a2a_call against `a2a serve --echo` (a2a-go's echo agent, HTTP+JSON):
// the agent delegates, the approval on this remote channel is given, and
// the echo comes back into the agent's answer. beamclaw's own CLI reaches
// the same peer.
func TestA2A_CallToolAgainstEchoServer(t *testing.T) {
	echo := startA2AEcho(t)
	r := newChatRig(t, rigOptions{extra: "a2a:\n  peers:\n    echo: {url: \"" + echo + "\"}\n"})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	conn := r.dial("ana")
	run := sendRun(t, conn, `call tool a2a_call {"peer":"echo","message":"ping over A2A"}`,
		func(a protocol.WSApproval) string {
			if a.ToolName != "a2a_call" {
				t.Errorf("approval for %s", a.ToolName)
			}
			return "allow"
		})
	if run.approvals != 1 {
		t.Fatalf("%d approvals, want 1 (a2a_call is high risk on a remote channel)", run.approvals)
	}
	if got := run.finalText(t); !strings.Contains(got, "tool a2a_call said: echo answered") || !strings.Contains(got, "ping over A2A") {
		t.Fatalf("final answer %q", got)
	}
	res := r.h.must("a2a", "send", "echo", "hi from beamclaw")
	if !strings.Contains(res.stdout, "hi from beamclaw") || !strings.Contains(res.stdout, "(completed: task ") {
		t.Fatalf("beamclaw a2a send: %s", res.stdout)
	}
	res = r.h.must("a2a", "discover", echo)
	if !strings.Contains(res.stdout, "HTTP+JSON") {
		t.Fatalf("beamclaw a2a discover: %s", res.stdout)
	}
}

// a2a_call against a second beamclaw daemon: the delegated question runs
// there as the peer "first", and its answer comes back into the first
// agent's answer. beamclaw's CLI streams from it with a token from the
// environment.
func TestA2A_CallToolAgainstSecondDaemon(t *testing.T) {
	second := newChatRig(t, rigOptions{extra: "a2a:\n  peers:\n    first: {token: {env: E2E_PEER_TOKEN}}\n"})
	second.h.env = append(second.h.env, "E2E_PEER_TOKEN="+a2aPeerToken)
	second.start()
	first := newChatRig(t, rigOptions{extra: "a2a:\n  peers:\n    second: {url: \"" + second.a2aURL() + "\", token: {env: E2E_PEER_TOKEN}}\n"})
	first.h.env = append(first.h.env, "E2E_PEER_TOKEN="+a2aPeerToken)
	first.llm.SetDefault(fakellm.Rules)
	first.start()
	run := sendRun(t, first.dial("ana"), `call tool a2a_call {"peer":"second","message":"what is the capital of France?"}`,
		func(protocol.WSApproval) string { return "allow" })
	got := run.finalText(t)
	if !strings.Contains(got, "second answered") || !strings.Contains(got, "echo: what is the capital of France?") {
		t.Fatalf("first agent's answer %q", got)
	}
	if q := llmLast(t, second.llm).LastUser(); q != "what is the capital of France?" {
		t.Fatalf("the second daemon's model saw %q", q)
	}
	first.h.env = append(first.h.env, "E2E_TOKEN_FOR_SECOND="+a2aPeerToken)
	res := first.h.must("a2a", "send", second.a2aURL(), "streamed across", "--stream", "--token-env", "E2E_TOKEN_FOR_SECOND")
	if !strings.Contains(res.stdout, "echo: streamed across") || !strings.Contains(res.stdout, "(completed: task ") {
		t.Fatalf("beamclaw a2a send --stream: %s", res.stdout)
	}
	if res := first.h.run("a2a", "send", second.a2aURL(), "no token"); res.code == 0 {
		t.Fatalf("a send without the peer token succeeded: %s", res.stdout)
	}
}
