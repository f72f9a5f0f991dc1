package cli

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// sandboxBackend answers the sandbox commands.
type sandboxBackend struct {
	fakeBackend
	status protocol.SandboxStatus
	list   protocol.SandboxContainers
	build  protocol.SandboxBuild
}

func (f *sandboxBackend) SandboxStatus(context.Context) (protocol.SandboxStatus, error) {
	f.call("status")
	return f.status, f.err
}

func (f *sandboxBackend) SandboxList(context.Context) (protocol.SandboxContainers, error) {
	f.call("list")
	return f.list, f.err
}

func (f *sandboxBackend) SandboxKill(_ context.Context, id string) error {
	f.call("kill " + id)
	return f.err
}

func (f *sandboxBackend) SandboxBuild(_ context.Context, force bool, mirror string, progress io.Writer) (protocol.SandboxBuild, error) {
	f.call(fmt.Sprintf("build force=%v mirror=%s", force, mirror))
	fmt.Fprintln(progress, "building...")
	return f.build, f.err
}

func TestSandboxCommands(t *testing.T) {
	on := protocol.SandboxStatus{Daemon: true, Enabled: true, ExecOn: true, InstallID: "bc-1", Engine: "unix:///d.sock",
		EngineOK: true, EngineVersion: "20.10", APIVersion: "1.41", Image: "bc:latest", ImageID: "abc", ImageCurrent: true,
		Runtime: "runc", RuntimeOK: true, Containers: 2}
	down := protocol.SandboxStatus{Enabled: true, Engine: "unix:///d.sock", Image: "bc:latest",
		Problem: "the Docker engine is not reachable", Fix: "start dockerd"}
	tests := []struct {
		name      string
		args      []string
		b         sandboxBackend
		wantCode  int
		wantOut   []string
		wantErr   []string
		wantCalls []string
	}{
		{name: "status on", args: []string{"sandbox", "status"}, b: sandboxBackend{status: on}, wantCalls: []string{"status"},
			wantOut: []string{"sandbox:     on: the running daemon offers exec", "engine:      Docker 20.10 at unix:///d.sock (API 1.41)",
				"image:       bc:latest (abc, current)", "containers:  2 of installation bc-1"}},
		{name: "status down fails", args: []string{"sandbox", "status"}, b: sandboxBackend{status: down}, wantCalls: []string{"status"},
			wantCode: 1, wantOut: []string{"sandbox:  enabled, but exec cannot run", "problem:  the Docker engine is not reachable", "fix:      start dockerd"},
			wantErr: []string{"beamclaw: sandboxed code execution cannot run: the Docker engine is not reachable"}},
		{name: "list", args: []string{"sandbox", "list"}, wantCalls: []string{"list"},
			b: sandboxBackend{list: protocol.SandboxContainers{Daemon: true, Containers: []protocol.SandboxContainer{
				{ID: "0123456789ab", Name: "beamclaw-sbx-1", Scope: "session", Session: "s1", Agent: "default", State: "running", Status: "Up 1 minute", InFlight: 1}}}},
			wantOut: []string{"ID            NAME            SCOPE    SESSION  AGENT    STATE    STATUS       RUNS",
				"0123456789ab  beamclaw-sbx-1  session  s1       default  running  Up 1 minute  1"}},
		{name: "list empty", args: []string{"sandbox", "list"}, wantCalls: []string{"list"}, wantOut: []string{"no sandbox containers"}},
		{name: "kill", args: []string{"sandbox", "kill", "beamclaw-sbx-1"}, wantCalls: []string{"kill beamclaw-sbx-1"},
			wantOut: []string{"removed beamclaw-sbx-1"}},
		{name: "kill unknown", args: []string{"sandbox", "kill", "x"}, b: sandboxBackend{fakeBackend: fakeBackend{err: errString("no sandbox container \"x\"")}},
			wantCalls: []string{"kill x"}, wantCode: 1, wantErr: []string{`beamclaw: no sandbox container "x"`}},
		{name: "build tells the daemon's view", args: []string{"sandbox", "build", "--force"},
			b:         sandboxBackend{build: protocol.SandboxBuild{Built: true, Daemon: &on}},
			wantCalls: []string{"build force=true mirror="}, wantOut: []string{"building...", "the running daemon offers exec"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.b
			r := run(t, &f, "", tc.args...)
			r.want(t, tc.wantCode, tc.wantOut, tc.wantErr)
			wantCalls(t, tc.wantCalls, f.calls)
		})
	}
}
