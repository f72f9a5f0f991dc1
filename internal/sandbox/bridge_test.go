package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// fakeTools is a Tools over a fixed set, recording calls.
type fakeTools struct {
	mu    sync.Mutex
	calls []fakeCall
}

type fakeCall struct {
	Caller Caller
	Name   string
	Args   map[string]any
}

func (f *fakeTools) List(_ context.Context, c Caller) ([]ToolInfo, error) {
	tools := []ToolInfo{
		{Name: "weather", Description: "Current temperature of a city.\nArguments: city.", Source: "builtin",
			Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		{Name: "population", Description: "Population of a city.", Source: "builtin",
			Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)},
		{Name: "send_email", Description: "Send an email.", Source: "builtin",
			Schema: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}}}`)},
		{Name: "bash", Description: "Run bash on the host.", Source: "builtin"},
		{Name: "github__create_issue", Description: "Open an issue.", Source: "mcp:github"},
		{Name: "exec", Description: "The sandbox itself.", Source: "sandbox"},
		{Name: "fails", Description: "Always fails.", Source: "builtin"},
	}
	if c.AgentID == "restricted" {
		return tools[:1], nil
	}
	return tools, nil
}

func (f *fakeTools) Call(_ context.Context, c Caller, name string, args json.RawMessage) (string, error) {
	var a map[string]any
	if err := json.Unmarshal(args, &a); err != nil {
		return "", fmt.Errorf("bad args: %w", err)
	}
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{c, name, a})
	f.mu.Unlock()
	city, _ := a["city"].(string)
	switch name {
	case "weather":
		return map[string]string{"Paris": "18", "Oslo": "4"}[city], nil
	case "population":
		return map[string]string{"Paris": "2100000", "Oslo": "700000"}[city], nil
	case "send_email":
		return fmt.Sprintf("sent to %v", a["to"]), nil
	case "fails":
		return "", errors.New("the upstream service is down")
	}
	return "", fmt.Errorf("unexpected tool %s", name)
}

func (f *fakeTools) recorded() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

func bridgeManager(t *testing.T) (*Manager, *fakeTools) {
	opts := testOptions(t)
	opts.Policy.Rules = append(opts.Policy.Rules, PolicyRule{Action: "deny", Tool: "mcp:*"})
	ft := &fakeTools{}
	opts.Tools = ft
	return startManager(t, opts), ft
}

func TestBridgeAggregatesTwoTools(t *testing.T) {
	m, ft := bridgeManager(t)
	c := Caller{SessionID: "s-bridge", AgentID: "default", UserID: "u1", Channel: "telegram"}
	res := mustRun(t, m, c, LangPython, `
import beamclaw_tools as bt
names = [t["name"] for t in bt.search_tools("city")]
rows = []
for city in ("Paris", "Oslo"):
    rows.append("%s %s°C %s people" % (city, bt.call_tool("weather", city=city), bt.call_tool("population", {"city": city})))
print(",".join(names))
print("; ".join(rows))
print(bt.get_tool("weather")["schema"]["required"])
`)
	want := "population,weather\nParis 18°C 2100000 people; Oslo 4°C 700000 people\n['city']\n"
	if res.ExitCode != 0 || res.Stdout != want {
		t.Fatalf("got:\n%s\nwant stdout:\n%s", dump(res), want)
	}
	calls := ft.recorded()
	if len(calls) != 4 {
		t.Fatalf("%d tool calls, want 4", len(calls))
	}
	for _, call := range calls {
		if call.Caller != c {
			t.Errorf("tool %s ran for %+v, want the script's caller %+v", call.Name, call.Caller, c)
		}
	}
}

func TestBridgeFromSh(t *testing.T) {
	m, _ := bridgeManager(t)
	res := mustRun(t, m, caller("s-sh"), LangSh, `
set -e
cut -f1 /tools/index.txt | tr '\n' ' '; echo
head -1 /tools/weather/description.txt
beamclaw-tools call weather '{"city": "Oslo"}'
echo '{"city": "Paris"}' | beamclaw-tools call population -
beamclaw-tools search temperature
beamclaw-tools call bash '{}' || echo "refused: $?"
`)
	want := "fails population send_email weather \nCurrent temperature of a city.\n4\n2100000\n" +
		"weather\tCurrent temperature of a city.\nrefused: 1\n"
	if res.ExitCode != 0 || res.Stdout != want {
		t.Fatalf("got:\n%s\nwant stdout:\n%s", dump(res), want)
	}
	if !strings.Contains(res.Stderr, "denied") {
		t.Errorf("stderr lacks the denial: %q", res.Stderr)
	}
}

func TestBridgeRefusals(t *testing.T) {
	m, ft := bridgeManager(t)
	res := mustRun(t, m, caller("s-deny"), LangPython, `
import beamclaw_tools as bt
for name, args in (("bash", {"script": "id"}), ("github__create_issue", {}), ("exec", {}),
                   ("nope", {}), ("fails", {})):
    try:
        bt.call_tool(name, args)
        print(name, "ran")
    except bt.ToolError as e:
        print(name, e.code, e.message)
`)
	if res.ExitCode != 0 {
		t.Fatalf("%s", dump(res))
	}
	for _, want := range []string{
		"bash -32001 tool bash is denied to sandboxed scripts by sandbox.policy",
		"github__create_issue -32001 tool github__create_issue is denied",
		"exec -32001 tool exec cannot be called from inside the sandbox",
		"nope -32004 no tool named nope",
		"fails -32000 the upstream service is down",
	} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("missing %q in:\n%s", want, res.Stdout)
		}
	}
	for _, call := range ft.recorded() {
		if call.Name != "fails" {
			t.Errorf("refused tool %s reached the registry", call.Name)
		}
	}
}

func TestBridgeNeedsARunToken(t *testing.T) {
	m, ft := bridgeManager(t)
	res := mustRun(t, m, caller("s-token"), LangPython, `
import os, beamclaw_tools as bt
os.environ["BEAMCLAW_RUN_TOKEN"] = "0" * 32
try:
    bt.call_tool("weather", city="Paris")
except bt.ToolError as e:
    print(e.code)
`)
	if strings.TrimSpace(res.Stdout) != "-32002" || len(ft.recorded()) != 0 {
		t.Fatalf("a forged token was accepted:\n%s", dump(res))
	}
}

func TestPIIRoundTrip(t *testing.T) {
	m, ft := bridgeManager(t)
	c := caller("s-pii")
	res := mustRun(t, m, c, LangPython, `
import beamclaw_tools as bt
to = "alice.smith@example.com"
print("script sees", to)
print(bt.call_tool("send_email", to=to, body="card 4111 1111 1111 1111"))
`)
	if res.ExitCode != 0 {
		t.Fatalf("%s", dump(res))
	}
	calls := ft.recorded()
	if len(calls) != 1 || calls[0].Args["to"] != "alice.smith@example.com" || calls[0].Args["body"] != "card 4111 1111 1111 1111" {
		t.Fatalf("the tool did not get the real values: %+v", calls)
	}
	if strings.Contains(res.Stdout, "alice") || strings.Contains(res.Stdout, "4111") {
		t.Fatalf("personal data reached the model's output:\n%s", res.Stdout)
	}
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	tok := strings.TrimPrefix(lines[0], "script sees ")
	if !strings.HasPrefix(tok, "PII_EMAIL_") || lines[1] != "sent to "+tok {
		t.Fatalf("want one stable token for the email in both lines:\n%s", res.Stdout)
	}
	if got := m.Tokenizer("s-pii").Detokenize(res.Stdout); !strings.Contains(got, "alice.smith@example.com") {
		t.Errorf("the session's tokenizer cannot restore the output: %s", got)
	}
}

func TestToolsDirFollowsTheCallersTools(t *testing.T) {
	opts := testOptions(t)
	opts.Scope = ScopeShared
	opts.Tools = &fakeTools{}
	m := startManager(t, opts)
	script := "cat /tools/index.txt | cut -f1 | tr '\\n' ' '"
	all := mustRun(t, m, Caller{SessionID: "x", AgentID: "default"}, LangSh, script)
	few := mustRun(t, m, Caller{SessionID: "y", AgentID: "restricted"}, LangSh, script)
	if all.Stdout != "fails github__create_issue population send_email weather " || few.Stdout != "weather " {
		t.Fatalf("index for default: %q, for restricted: %q", all.Stdout, few.Stdout)
	}
}
