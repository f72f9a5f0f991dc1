package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/workspace"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
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
	prompt := req.System()
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
	for _, want := range []string{"read_file", "write_file", "bash", "workspace_memory", "curl", "tool_search"} {
		if !tools[want] {
			t.Errorf("tool %s not offered to the model (got %v)", want, tools)
		}
	}
	for _, deferred := range []string{"jq", "terminal", "delete_file"} {
		if tools[deferred] || !strings.Contains(prompt, "\n- "+deferred+": ") {
			t.Errorf("tool %s is not deferred behind tool_search (offered: %v)", deferred, tools[deferred])
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

// TestMemoryIsThePersonsOwn (issue 24, item 1): erin and lee talk to the
// same agent. What erin leaves behind (a MEMORY.md note, a keyed note, a
// daily-log entry, and her conversation flushed to memory before it
// expires and by the nightly pass) reaches neither the prompt sent for
// lee's turns nor lee's workspace_memory search or recall; erin's own
// search finds it. With memory_scope: agent the agent's memory is shared
// again, as before.
func TestMemoryIsThePersonsOwn(t *testing.T) {
	// What erin said, never what lee types (his queries are echoed back).
	secrets := []string{"sister is called Quillon", "collects zebu", "8812", "trip to Tromso"}
	for _, scope := range []string{"user", "agent"} {
		t.Run(scope, func(t *testing.T) {
			r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"http": "full"},
				core: "  session_ttl_seconds: 61\n  agents:\n    default: {memory_scope: " + scope + "}\n" +
					"  maintenance:\n    enabled: true\n    scan_interval_ms: 200\n    pre_expiry_minutes: 1\n" +
					"    quiet_hours: [0, 24]\n    nightly_min_messages: 1\n"})
			r.llm.SetDefault(func(req fakellm.Request) fakellm.Reply {
				if len(req.Messages) > 1 && strings.HasPrefix(req.Messages[0].Content, "The conversation below is about to be compacted") {
					return fakellm.Reply{Text: "- Saved: " + req.Messages[1].Content} // the flush keeps everything
				}
				return fakellm.Rules(req)
			})
			r.start()
			r.chat("erin", "my sister is called Quillon")
			r.chat("erin", `call tool workspace_memory {"action":"append","content":"Erin collects zebu figurines"}`)
			r.chat("erin", `call tool workspace_memory {"action":"remember","key":"pin","content":"Erin's locker code is 8812"}`)
			r.chat("erin", `call tool workspace_memory {"action":"append_daily","content":"Erin plans a trip to Tromso"}`)
			pollUntil(t, 30*time.Second, "erin's session flushed before expiry and by the nightly pass", func() bool {
				logs := r.h.logs()
				return strings.Contains(logs, "maintenance_pre_expiry_flush") && strings.Contains(logs, "maintenance_nightly_complete")
			})
			dailies := "people/default/*/memory/*.md"
			if scope == "agent" {
				dailies = "agents/default/memory/*.md"
			}
			pollUntil(t, 10*time.Second, "the flush in "+dailies, func() bool {
				files, _ := filepath.Glob(filepath.Join(r.h.dir, filepath.FromSlash(dailies)))
				for _, f := range files {
					if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "Saved: ") && strings.Contains(string(b), "Quillon") {
						return true
					}
				}
				return false
			})

			before := len(r.llm.Requests())
			r.chat("lee", "hello, what do you know?")
			for _, q := range []string{"Quillon", "zebu", "Tromso"} {
				r.chat("lee", `call tool workspace_memory {"action":"search","query":"`+q+`"}`)
			}
			r.chat("lee", `call tool workspace_memory {"action":"recall","query":"locker code"}`)
			// The file tools reach the workspace only: other users' memory is
			// not in it.
			key := workspace.UserKey("api:erin")
			for _, p := range []string{"users/" + key + "/MEMORY.md", "../../people/default/" + key + "/MEMORY.md", "../people/default/" + key + "/MEMORY.md"} {
				r.chat("lee", `call tool read_file {"path":"`+p+`"}`)
			}
			var leeSaw strings.Builder
			for _, req := range r.llm.Requests()[before:] {
				if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
					leeSaw.WriteString(req.Messages[0].Content)
				}
				leeSaw.WriteString(strings.Join(llmToolResults(req), "\n"))
			}
			for _, word := range secrets {
				if got := strings.Contains(leeSaw.String(), word); got != (scope == "agent") {
					t.Errorf("memory_scope %s: erin's %q in what lee's turns sent the provider = %v", scope, word, got)
				}
			}
			if scope == "user" {
				before = len(r.llm.Requests())
				r.chat("erin", `call tool workspace_memory {"action":"search","query":"zebu Quillon"}`)
				reqs := r.llm.Requests()[before:]
				if res := strings.Join(llmToolResults(reqs[len(reqs)-1]), "\n"); !strings.Contains(res, "zebu") {
					t.Errorf("erin's own search does not find her note: %q", res)
				}
				if !strings.Contains(reqs[0].Messages[0].Content, "Quillon") {
					t.Error("erin's prompt lacks her own flushed memory")
				}
				exportAndForget(t, r)
			}
		})
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

// exportAndForget: beamclaw users export gives erin's sessions and her own
// memory; users forget removes them (her next search finds nothing of
// it); deleting lee's only session forgets his memory too.
func exportAndForget(t *testing.T, r *chatRig) {
	t.Helper()
	var ex protocol.UserExport
	if out := r.h.must("users", "export", "api:erin").stdout; json.Unmarshal([]byte(out), &ex) != nil {
		t.Fatalf("users export: %s", out)
	}
	raw, _ := json.Marshal(ex)
	for _, want := range []string{"collects zebu", "8812", "trip to Tromso", "sister is called Quillon"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("erin's export lacks %q", want)
		}
	}
	if len(ex.Sessions) == 0 || len(ex.Memory) != 1 || ex.Memory[0].Agent != "default" {
		t.Errorf("erin's export: %d sessions, memory %+v", len(ex.Sessions), ex.Memory)
	}
	if strings.Contains(string(raw), "lee") {
		t.Error("erin's export holds lee's words")
	}
	if out := r.h.must("users", "forget", "api:erin", "--yes").stdout; !strings.Contains(out, "forgot api:erin") {
		t.Errorf("users forget: %s", out)
	}
	for _, s := range r.h.sessions("--archived") {
		if s.User == "api:erin" {
			t.Errorf("erin's session %s outlived users forget", s.ID)
		}
	}
	before := len(r.llm.Requests())
	r.chat("erin", `call tool workspace_memory {"action":"search","query":"zebu Quillon Tromso"}`)
	for _, req := range r.llm.Requests()[before:] {
		if res := strings.Join(llmToolResults(req), "\n"); strings.Contains(res, "collects zebu") || strings.Contains(res, "Saved: ") {
			t.Errorf("erin's memory outlived users forget: %q", res)
		}
	}

	r.chat("lee", `call tool workspace_memory {"action":"append","content":"Lee likes quinces"}`)
	leeDir := func() bool {
		ids, _ := filepath.Glob(filepath.Join(r.h.dir, "people", "default", "*", "ID"))
		for _, f := range ids {
			if b, _ := os.ReadFile(f); strings.TrimSpace(string(b)) == "api:lee" {
				return true
			}
		}
		return false
	}
	if !leeDir() {
		t.Fatal("lee has no memory of his own")
	}
	for _, s := range r.h.sessions("--archived") {
		if s.User == "api:lee" {
			r.h.must("sessions", "delete", s.ID, "--yes")
		}
	}
	if leeDir() {
		t.Error("deleting lee's last session with the agent kept his memory")
	}
}
