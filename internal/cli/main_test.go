package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeBackend is a Backend with canned answers that records what the
// commands asked for.
type fakeBackend struct {
	Backend // nil: the commands under test never reach the other methods

	err   error // returned by every call that can fail
	calls []string

	agents  []protocol.Agent
	prompt  string
	catalog protocol.SkillCatalog
	content string
	plan    protocol.InstallPlan
	ran     bool // SkillInstall ran the plan
	mcpList protocol.MCPList
	tools   []protocol.MCPTool
	imp     protocol.MCPImport
	pairs   protocol.PairingList
	peer    protocol.Peer

	lastAll     bool
	lastApprove protocol.PairApproveRequest
	lastRevoke  protocol.PairRevokeRequest
	lastServer  string
	lastWrite   bool
	lastAgent   string
}

var _ Backend = (*fakeBackend)(nil)

func (f *fakeBackend) call(name string) { f.calls = append(f.calls, name) }

func (f *fakeBackend) AgentCreate(name string) (protocol.Agent, error) {
	f.call("create " + name)
	return protocol.Agent{Name: name, Dir: "/home/agents/" + name}, f.err
}

func (f *fakeBackend) AgentList() ([]protocol.Agent, error) {
	f.call("list")
	return f.agents, f.err
}

func (f *fakeBackend) AgentShow(name string) (protocol.Agent, error) {
	f.call("show " + name)
	for _, a := range f.agents {
		if a.Name == name {
			return a, nil
		}
	}
	return protocol.Agent{}, errString("no agent named " + name)
}

func (f *fakeBackend) AgentPrompt(name string) (string, error) {
	f.call("prompt " + name)
	return f.prompt, f.err
}

func (f *fakeBackend) AgentDelete(name string) error { f.call("delete " + name); return f.err }

func (f *fakeBackend) AgentRehatch(name string, all bool) (protocol.Agent, error) {
	f.call("rehatch " + name)
	f.lastAll = all
	return protocol.Agent{Name: name}, f.err
}

func (f *fakeBackend) SkillsList(agent string) (protocol.SkillCatalog, error) {
	f.lastAgent = agent
	return f.catalog, f.err
}

func (f *fakeBackend) SkillShow(agent, name string) (protocol.Skill, string, error) {
	f.lastAgent = agent
	return protocol.Skill{Name: name, Source: "bundled", Eligible: true}, f.content, f.err
}

func (f *fakeBackend) SkillInstall(_ context.Context, agent, _ string,
	confirm func(protocol.InstallPlan) bool, _, _ io.Writer) (protocol.InstallPlan, error) {
	f.lastAgent = agent
	if f.err != nil {
		return protocol.InstallPlan{}, f.err
	}
	if len(f.plan.Steps) > 0 && confirm(f.plan) {
		f.ran = true
	}
	return f.plan, nil
}

func (f *fakeBackend) MCPList(context.Context) (protocol.MCPList, error) {
	return f.mcpList, f.err
}

func (f *fakeBackend) MCPTools(_ context.Context, server string) ([]protocol.MCPTool, error) {
	f.lastServer = server
	return f.tools, f.err
}

func (f *fakeBackend) MCPTest(_ context.Context, name string) ([]protocol.MCPTool, error) {
	f.lastServer = name
	return f.tools, f.err
}

func (f *fakeBackend) MCPImport(_ string, write bool) (protocol.MCPImport, error) {
	f.lastWrite = write
	return f.imp, f.err
}

func (f *fakeBackend) PairList(context.Context, string) (protocol.PairingList, error) {
	f.call("pairlist")
	return f.pairs, f.err
}

func (f *fakeBackend) PairApprove(_ context.Context, req protocol.PairApproveRequest) (protocol.Peer, error) {
	f.lastApprove = req
	return f.peer, f.err
}

func (f *fakeBackend) PairRevoke(_ context.Context, req protocol.PairRevokeRequest) error {
	f.lastRevoke = req
	return f.err
}

type errString string

func (e errString) Error() string { return string(e) }

// runResult is one run of the CLI.
type runResult struct {
	code           int
	stdout, stderr string
}

// run runs the CLI against b with stdin.
func run(t *testing.T, b Backend, stdin string, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, func(string) Backend { return b }, strings.NewReader(stdin), &out, &errb)
	return runResult{code: code, stdout: out.String(), stderr: errb.String()}
}

// want fails the test unless the run exited with code (fatal) and its
// stdout and stderr hold every line of out and errOut.
func (r runResult) want(t *testing.T, code int, out, errOut []string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
	wantLines(t, "stdout", r.stdout, out...)
	wantLines(t, "stderr", r.stderr, errOut...)
}

// wantCalls compares the backend calls a run made with want.
func wantCalls(t *testing.T, want, got []string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// wantLines fails unless every want appears in got.
func wantLines(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

func (f *fakeBackend) Version() (version, commit, goVersion string) { return "test", "none", "go" }
