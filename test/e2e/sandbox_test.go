package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/load"
)

// TestSandboxScriptCallsToolsThroughTheBridge (issue 14): the model calls
// exec; the script reads two files through the bridge, aggregates them,
// and saves the sum with write_file, which asks the user for approval on
// the session's route like any call of the model's; only the script's
// output goes back to the model. The OpenAI-compatible API, which cannot
// ask, is refused exec with the reason. A second build is quick.
func TestSandboxScriptCallsToolsThroughTheBridge(t *testing.T) {
	requireSandbox(t)
	r := sandboxRig(t, rigOptions{}, "")
	putFile(t, r.agentFile("a.txt"), "21\n")
	putFile(t, r.agentFile("b.txt"), "2\n")
	r.start()
	code := `import beamclaw_tools as bt
names = [t["name"] for t in bt.search_tools("")]
index = open("/tools/index.txt").read()
a = int(bt.call_tool("read_file", {"path": "a.txt"}))
b = int(bt.call_tool("read_file", path="b.txt"))
bt.call_tool("write_file", {"path": "product.txt", "content": str(a * b)})
print("product", a * b)
print("listed", "read_file" in names, "bash" in names, "exec" in names, "read_file" in index)
`
	conn := r.localConn("ana")
	var asked []string
	run := sendRun(t, conn, execMessage(t, "python", code), func(a protocol.WSApproval) string {
		asked = append(asked, a.ToolName)
		return "yes"
	})
	out, _ := execResult(t, r.llm)
	if out.ExitCode != 0 || out.Stdout != "product 42\nlisted True False False True\n" {
		t.Fatalf("exec result: %+v", out)
	}
	if !strings.Contains(run.finalText(t), `product 42`) {
		t.Errorf("final answer %q", run.finalText(t))
	}
	if want := []string{"write_file"}; !slices.Equal(asked, want) {
		t.Errorf("approvals asked for %v, want %v", asked, want)
	}
	if got, want := toolFrames(run), []string{"exec", "read_file", "read_file", "write_file"}; !slices.Equal(got, want) {
		t.Errorf("tool_start frames %v, want %v", got, want)
	}
	if got := readFile(t, r.agentFile("product.txt")); got != "42" {
		t.Errorf("product.txt = %q", got)
	}
	for _, res := range llmToolResults(llmLast(t, r.llm)) {
		if strings.Contains(res, "21") && !strings.Contains(res, `"stdout"`) {
			t.Errorf("a nested tool result reached the model: %s", res)
		}
	}

	// The API cannot ask for approval: exec, high risk on a remote
	// channel, is refused with the reason.
	answer := r.chat("api-user", execMessage(t, "sh", "echo hi"))
	if !strings.Contains(answer, "tool exec needs approval") || !strings.Contains(answer, "cannot ask") {
		t.Errorf("exec over the API: %q", answer)
	}
	if b := r.h.must("sandbox", "build"); !strings.Contains(b.stdout, "up to date") || !strings.Contains(b.stdout, "the running daemon offers exec") {
		t.Errorf("second build:\n%s", b.stdout)
	}
}

// TestSandboxDeniedToolsGiveClearErrors (issue 14): a script calling bash
// (denied by sandbox.policy) and write_file (the user says no) gets an
// error that says why, and the script goes on. On a remote channel (/ws
// over TCP) exec itself is asked for first: a high-risk tool.
func TestSandboxDeniedToolsGiveClearErrors(t *testing.T) {
	requireSandbox(t)
	r := sandboxRig(t, rigOptions{}, "")
	r.start()
	code := `import beamclaw_tools as bt
for name, args in [("bash", {"command": "id"}), ("write_file", {"path": "x.txt", "content": "x"})]:
    try:
        bt.call_tool(name, args)
        print(name, "ran")
    except bt.ToolError as e:
        print(name, "refused:", e.message)
`
	run := sendRun(t, r.localConn("ana"), execMessage(t, "python", code), func(protocol.WSApproval) string { return "no" })
	run.finalText(t)
	out, _ := execResult(t, r.llm)
	want := "bash refused: tool bash is denied to sandboxed scripts by sandbox.policy (rule \"bash\")\n" +
		"write_file refused: denied: tool write_file was not run: the user denied it\n"
	if out.ExitCode != 0 || out.Stdout != want {
		t.Errorf("stdout %q, want %q (exit %d, stderr %q)", out.Stdout, want, out.ExitCode, out.Stderr)
	}
	if _, err := os.Stat(r.agentFile("x.txt")); err == nil {
		t.Error("the refused write_file wrote its file")
	}

	var asked []string
	remote := sendRun(t, r.dial("bob"), execMessage(t, "sh", "echo remote"), func(a protocol.WSApproval) string {
		asked = append(asked, a.ToolName)
		return "yes"
	})
	if !slices.Equal(asked, []string{"exec"}) || !strings.Contains(remote.finalText(t), `remote`) {
		t.Errorf("exec over TCP /ws: approvals %v, answer %q", asked, remote.finalText(t))
	}
}

// TestSandboxPIIRoundTrip (issue 14): personal data a tool returns enters
// the container as a token, the model sees only the token, and a tool the
// script passes the token to gets the real value.
func TestSandboxPIIRoundTrip(t *testing.T) {
	requireSandbox(t)
	r := sandboxRig(t, rigOptions{autonomy: "full"}, "")
	const email = "alice.liddell@example.com"
	putFile(t, r.agentFile("contact.txt"), "write to "+email+"\n")
	r.start()
	code := `import beamclaw_tools as bt
text = bt.call_tool("read_file", {"path": "contact.txt"})
bt.call_tool("write_file", {"path": "copy.txt", "content": text})
print(text.strip())
`
	sendRun(t, r.localConn("ana"), execMessage(t, "python", code), nil).finalText(t)
	out, raw := execResult(t, r.llm)
	if !strings.HasPrefix(out.Stdout, "write to PII_EMAIL_") || strings.Contains(raw, email) {
		t.Errorf("the model saw %q, want a token in place of the email", out.Stdout)
	}
	if got := readFile(t, r.agentFile("copy.txt")); got != "write to "+email+"\n" {
		t.Errorf("the tool got %q, want the real value", got)
	}
	for _, req := range r.llm.Requests() {
		b, _ := json.Marshal(req.Messages)
		if strings.Contains(string(b), email) {
			t.Fatalf("the email reached the model in %s", b)
		}
	}
}

// TestSandboxWithoutDocker (issue 14): sandbox.enabled with an engine that
// does not answer: the daemon starts without exec (never on the host),
// start and config check say why, the log has one WARN with the fix,
// doctor fails its sandbox line, /health's sandbox subsystem says exec is
// off (the daemon itself is ready).
func TestSandboxWithoutDocker(t *testing.T) {
	r := sandboxRig(t, rigOptions{}, "")
	r.h.env = append(r.h.env, "DOCKER_HOST=unix:///nonexistent/docker.sock")
	start := r.h.must("start")
	s, _ := r.h.status()
	r.addr, r.pid = s.HTTPAddr, s.PID
	if !strings.Contains(start.stdout, "warning: sandbox.enabled is true but sandboxed code execution cannot run here") {
		t.Errorf("start does not warn:\n%s", start.stdout)
	}
	if c := r.h.must("config", "check"); !strings.Contains(c.stdout, "start dockerd") {
		t.Errorf("config check:\n%s", c.stdout)
	}
	if n := strings.Count(r.h.logs(), "the exec tool is not offered"); n != 1 || !strings.Contains(r.h.logs(), "start dockerd") {
		t.Errorf("%d WARN lines about exec, want 1 with the fix:\n%s", n, r.h.logs())
	}
	doc := r.h.run("doctor")
	if doc.code == 0 || !strings.Contains(doc.stdout, "fail sandbox") || !strings.Contains(doc.stdout, "fix: start dockerd") {
		t.Errorf("doctor: exit %d\n%s", doc.code, doc.stdout)
	}
	h, err := client.NewTCP("http://"+r.addr, "").Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if sb := h.Subsystems["sandbox"]; !h.Ready || !strings.HasPrefix(sb.Detail, "exec is off: ") || !strings.Contains(sb.Detail, "not reachable") {
		t.Errorf("/health: %+v", h)
	}
	if st := r.h.run("sandbox", "status"); st.code == 0 || !strings.Contains(st.stdout, "exec cannot run") {
		t.Errorf("sandbox status: exit %d\n%s", st.code, st.stdout)
	}
	r.chat("ana", "hello")
	for _, tl := range llmLast(t, r.llm).Tools {
		if tl.Name == "exec" {
			t.Fatal("exec is offered without Docker")
		}
	}
}

// TestSandboxListKillAndReapAfterKill9 (issue 14): `sandbox list` and
// `sandbox kill` through the daemon; after kill -9 of the daemon its
// containers are left, `sandbox list` (no daemon: the engine) shows them,
// and the next start reaps them.
func TestSandboxListKillAndReapAfterKill9(t *testing.T) {
	requireSandbox(t)
	r := sandboxRig(t, rigOptions{}, "")
	r.start()
	for _, user := range []string{"ana", "bob"} {
		sendRun(t, r.localConn(user), execMessage(t, "sh", "echo hi"), nil).finalText(t)
	}
	list := r.h.sandboxContainers()
	if !list.Daemon || len(list.Containers) != 2 || !list.Containers[0].Mine || list.Containers[0].State != "running" {
		t.Fatalf("sandbox list: %+v", list)
	}
	killed := list.Containers[0].Name
	if k := r.h.must("sandbox", "kill", killed); !strings.Contains(k.stdout, "removed "+killed) {
		t.Errorf("sandbox kill: %s", k.stdout)
	}
	if l := r.h.sandboxContainers(); len(l.Containers) != 1 || l.Containers[0].Name == killed {
		t.Fatalf("after kill: %+v", l)
	}
	if k := r.h.run("sandbox", "kill", "no-such-container"); k.code == 0 || !strings.Contains(k.stderr, "no sandbox container") {
		t.Errorf("kill of an unknown container: exit %d %s", k.code, k.stderr)
	}
	left := r.h.sandboxContainers().Containers[0].Name

	r.kill9()
	after := r.h.sandboxContainers()
	if after.Daemon || len(after.Containers) != 1 || after.Containers[0].Name != left {
		t.Fatalf("after kill -9, sandbox list (engine): %+v", after)
	}
	r.start()
	pollUntil(t, 60*time.Second, "the dead daemon's container reaped", func() bool {
		return len(r.h.sandboxContainers().Containers) == 0
	})
	if !strings.Contains(r.h.logs(), "reason=daemon_dead") && !strings.Contains(r.h.logs(), `"reason":"daemon_dead"`) {
		t.Errorf("the log does not say why the container went:\n%s", r.h.logs())
	}
	// Stopping the daemon removes the containers it made.
	sendRun(t, r.localConn("ana"), execMessage(t, "sh", "true"), nil).finalText(t)
	r.h.must("stop")
	if l := r.h.sandboxContainers(); len(l.Containers) != 0 {
		t.Errorf("containers left after stop: %+v", l)
	}
	if _, err := os.Stat(filepath.Join(r.h.dir, "install-id")); err != nil {
		t.Errorf("no install id: %v", err)
	}
}

// TestSandboxExecLoadTool keeps the exec measurement of docs/performance.md
// (bcload -mode exec) working against the real binary; it asserts counts,
// never timings.
func TestSandboxExecLoadTool(t *testing.T) {
	requireSandbox(t)
	r := sandboxRig(t, rigOptions{}, "")
	r.start()
	res, err := load.RunExec(t.Context(), load.ExecConfig{Socket: filepath.Join(r.h.dir, "run", "beamclaw.sock"),
		Scopes: 2, N: 4, UserPrefix: "load-", Limit: 2 * time.Minute})
	if err != nil || res.Errors != 0 {
		t.Fatalf("RunExec: %v, %+v", err, res)
	}
	if res.FirstExec.N != 2 || res.WarmExec.N != 4 || res.WarmTurn.N != 4 || res.FirstExec.P50 <= 0 {
		t.Errorf("counts: %+v", res)
	}
	if l := r.h.sandboxContainers(); len(l.Containers) != 2 {
		t.Errorf("%d containers for 2 scopes", len(l.Containers))
	}
}

// TestSandboxSavedScriptRunsAgainByName (issue 14): a script that
// succeeded is saved as a sandbox_script skill (save_as), is listed among
// the agent's skills, and runs again by name.
func TestSandboxSavedScriptRunsAgainByName(t *testing.T) {
	requireSandbox(t)
	r := sandboxRig(t, rigOptions{}, "")
	r.start()
	conn := r.localConn("ana")
	save, _ := json.Marshal(map[string]string{"language": "python", "code": "print(6 * 7)", "save_as": "answer",
		"description": "Prints the answer."})
	sendRun(t, conn, "call tool exec "+string(save), nil).finalText(t)
	if out, raw := execResult(t, r.llm); out.Stdout != "42\n" || !strings.Contains(raw, `"saved_skill":"answer"`) {
		t.Fatalf("save run: %s", raw)
	}
	if body := readFile(t, r.agentFile(filepath.Join("skills", "answer", "SKILL.md"))); !strings.Contains(body, "type: sandbox_script") {
		t.Errorf("SKILL.md:\n%s", body)
	}
	if l := r.h.must("skills", "list"); !strings.Contains(l.stdout, "answer") {
		t.Errorf("skills list does not show the saved script:\n%s", l.stdout)
	}
	sendRun(t, conn, `call tool exec {"skill": "answer"}`, nil).finalText(t)
	if out, raw := execResult(t, r.llm); out.ExitCode != 0 || out.Stdout != "42\n" {
		t.Errorf("run by name: %s", raw)
	}
}
