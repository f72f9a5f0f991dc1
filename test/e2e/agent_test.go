package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestAgentPromptOrderAndTools: the provider receives the workspace files
// in the spec's order and the built-in tool definitions.
func TestAgentPromptOrderAndTools(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.h.must("agent", "create", "default")
	order := []string{"IDENTITY", "SOUL", "USER", "TOOLS", "AGENTS", "BOOTSTRAP", "MEMORY"}
	markers := make([]string, len(order))
	for i, name := range order {
		markers[i] = canarySecret(t, "marker-"+strings.ToLower(name)+"-", 8)
		putFile(t, r.agentFile(name+".md"), "# "+name+"\n\n"+markers[i]+"\n")
	}
	r.start()
	r.chat("ana", "who are you?")

	req := llmLast(t, r.llm)
	var system strings.Builder
	for _, m := range req.Messages {
		if m.Role == "system" {
			system.WriteString(m.Content + "\n")
		}
	}
	prompt := system.String()
	last := -1
	for i, marker := range markers {
		at := strings.Index(prompt, marker)
		if at < 0 {
			t.Errorf("%s.md is not in the system prompt", order[i])
			continue
		}
		if at < last {
			t.Errorf("%s.md comes before the file preceding it in the spec's order", order[i])
		}
		last = at
	}
	tools := map[string]bool{}
	for _, tl := range req.Tools {
		tools[tl.Name] = true
		if tl.Type != "function" || len(tl.Parameters) == 0 {
			t.Errorf("tool %s: type %q, parameters %s", tl.Name, tl.Type, tl.Parameters)
		}
	}
	for _, want := range []string{"read_file", "write_file", "bash", "workspace_memory", "jq", "curl"} {
		if !tools[want] {
			t.Errorf("tool %s not offered to the model (got %v)", want, tools)
		}
	}
}

// TestAgentJQToolResult: a jq tool call runs in the daemon and its result
// reaches the provider.
func TestAgentJQToolResult(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	call := `call tool jq {"filter":".items[] | select(.n > 1) | .name","input":{"items":[{"name":"alpha","n":1},{"name":"beta","n":2},{"name":"gamma","n":3}]}}`
	answer := r.chat("ana", call)
	res := llmToolResults(llmLast(t, r.llm))
	if len(res) != 1 {
		t.Fatalf("tool results sent back: %q", res)
	}
	if got := strings.Fields(res[0]); strings.Join(got, " ") != `"beta" "gamma"` {
		t.Errorf("jq result %q, want \"beta\" and \"gamma\"", res[0])
	}
	if !strings.Contains(answer, `"gamma"`) {
		t.Errorf("answer %q", answer)
	}
}

// TestAgentMemoryAcrossSessions: what one session appends with
// workspace_memory, another user's session finds with its search.
func TestAgentMemoryAcrossSessions(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"http": "full"}})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.chat("ana", `call tool workspace_memory {"action":"append","content":"Ana's favourite tea is genmaicha"}`)
	if mem, err := os.ReadFile(r.agentFile("MEMORY.md")); err != nil || !strings.Contains(string(mem), "genmaicha") {
		t.Fatalf("MEMORY.md after append (%v): %q", err, mem)
	}
	before := len(r.llm.Requests())
	r.chat("bob", `call tool workspace_memory {"action":"search","query":"favourite tea"}`)
	reqs := r.llm.Requests()[before:]
	res := llmToolResults(reqs[len(reqs)-1])
	if len(res) != 1 || !strings.Contains(res[0], "genmaicha") {
		t.Errorf("search in bob's session did not find the note: %q", res)
	}
	for _, line := range llmConversation(reqs[0]) {
		if strings.Contains(line, "append") {
			t.Errorf("bob's session carries ana's history: %q", line)
		}
	}
}

func TestAgentNotesSurviveRestart(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"http": "full"}})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.chat("ana", `call tool workspace_memory {"action":"remember","key":"user.tz","content":"Ana lives in Lisbon"}`)
	r.h.must("stop")
	r.start()
	before := len(r.llm.Requests())
	r.chat("ana", `call tool workspace_memory {"action":"recall","query":"Lisbon"}`)
	reqs := r.llm.Requests()[before:]
	res := llmToolResults(reqs[len(reqs)-1])
	if len(res) == 0 || !strings.Contains(res[len(res)-1], "user.tz: Ana lives in Lisbon") {
		t.Errorf("recall after restart: %q", res)
	}
}
