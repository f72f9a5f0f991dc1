package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func twoAgents() []protocol.Agent {
	return []protocol.Agent{
		{Name: "default", Dir: "/h/agents/default", BootstrapPending: true,
			Files: []protocol.AgentFile{{Name: "IDENTITY.md", Size: 100, ModTime: "2026-01-02T03:04:05Z"},
				{Name: "BOOTSTRAP.md", Size: 2048, ModTime: "2026-01-02T03:04:05Z"}}},
		{Name: "work-bot", Dir: "/h/agents/work-bot", DailyLogs: []string{"2026-01-01", "2026-01-02"},
			Files: []protocol.AgentFile{{Name: "SOUL.md", Size: 10}}},
	}
}

func TestAgentCommands(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		err        error
		wantCode   int
		wantOut    []string
		wantErr    []string
		wantCalls  []string
		wantAllSet bool
	}{
		{name: "list table", args: []string{"agent", "list"},
			wantOut:   []string{"NAME      FILES  SIZE     DAILY LOGS  BOOTSTRAP", "default   2      2.1 KiB  0           pending", "work-bot  1      10 B     2           done"},
			wantCalls: []string{"list"}},
		{name: "create", args: []string{"agent", "create", "x"},
			wantOut: []string{"agent x created in /home/agents/x"}, wantCalls: []string{"create x"}},
		{name: "create fails", args: []string{"agent", "create", "X/.."}, err: errString("agent names use lower-case"),
			wantCode: 1, wantErr: []string{"beamclaw: agent names use lower-case"}, wantCalls: []string{"create X/.."}},
		{name: "create needs a name", args: []string{"agent", "create"}, wantCode: 1,
			wantErr: []string{"accepts 1 arg(s), received 0"}},
		{name: "show", args: []string{"agent", "show", "work-bot"},
			wantOut:   []string{"agent work-bot", "bootstrap   done", "daily logs  2 (2026-01-01 .. 2026-01-02)", "SOUL.md  10 B"},
			wantCalls: []string{"show work-bot"}},
		{name: "show pending bootstrap", args: []string{"agent", "show", "default"},
			wantOut: []string{"bootstrap   pending", "daily logs  none", "BOOTSTRAP.md  2.0 KiB"}, wantCalls: []string{"show default"}},
		{name: "show prompt", args: []string{"agent", "show", "default", "--prompt"},
			wantOut: []string{"# IDENTITY.md (who you are)"}, wantCalls: []string{"prompt default"}},
		{name: "show missing", args: []string{"agent", "show", "ghost"}, wantCode: 1,
			wantErr: []string{"beamclaw: no agent named ghost"}, wantCalls: []string{"show ghost"}},
		{name: "delete declined", args: []string{"agent", "delete", "work-bot"}, stdin: "n\n", wantCode: 1,
			wantErr:   []string{"Delete agent work-bot and everything in /h/agents/work-bot (2 daily logs)? [y/N]", "cancelled"},
			wantCalls: []string{"show work-bot"}},
		{name: "delete without an answer", args: []string{"agent", "delete", "work-bot"}, wantCode: 1,
			wantErr: []string{"cancelled"}, wantCalls: []string{"show work-bot"}},
		{name: "delete confirmed", args: []string{"agent", "delete", "work-bot"}, stdin: "yes\n",
			wantOut: []string{"agent work-bot deleted"}, wantCalls: []string{"show work-bot", "delete work-bot"}},
		{name: "delete --yes", args: []string{"agent", "delete", "--yes", "work-bot"},
			wantOut: []string{"agent work-bot deleted"}, wantCalls: []string{"show work-bot", "delete work-bot"}},
		{name: "rehatch keeps logs", args: []string{"agent", "rehatch", "default"}, stdin: "y\n",
			wantErr:   []string{"daily logs kept)? [y/N]"},
			wantOut:   []string{"agent default rehatched"},
			wantCalls: []string{"show default", "rehatch default"}},
		{name: "rehatch --all --yes", args: []string{"agent", "rehatch", "default", "--all", "--yes"},
			wantOut: []string{"agent default rehatched"}, wantCalls: []string{"show default", "rehatch default"}, wantAllSet: true},
		{name: "rehatch declined", args: []string{"agent", "rehatch", "default", "--all"}, stdin: "\n", wantCode: 1,
			wantErr: []string{"Wipe agent default's whole workspace", "cancelled"}, wantCalls: []string{"show default"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeBackend{agents: twoAgents(), prompt: "# IDENTITY.md (who you are)\n", err: tc.err}
			r := run(t, f, tc.stdin, tc.args...)
			r.want(t, tc.wantCode, tc.wantOut, tc.wantErr)
			wantCalls(t, tc.wantCalls, f.calls)
			if f.lastAll != tc.wantAllSet {
				t.Errorf("rehatch all = %v, want %v", f.lastAll, tc.wantAllSet)
			}
		})
	}
}

func TestAgentListEmptyAndJSON(t *testing.T) {
	r := run(t, &fakeBackend{}, "", "agent", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "no agents yet") {
		t.Fatalf("empty list: %d %q", r.code, r.stdout)
	}
	r = run(t, &fakeBackend{}, "", "agent", "list", "--json")
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("empty json list: %q", r.stdout)
	}
	r = run(t, &fakeBackend{agents: twoAgents()}, "", "agent", "list", "--json")
	var got []protocol.Agent
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("json: %v: %s", err, r.stdout)
	}
	if diff := cmp.Diff(twoAgents(), got); diff != "" {
		t.Errorf("json (-want +got):\n%s", diff)
	}
}
