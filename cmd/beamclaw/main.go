// Command beamclaw is the daemon and its CLI in one binary.
package main

import (
	"context"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/beamclaw/beamclaw-go/internal/cli"
	"github.com/beamclaw/beamclaw-go/internal/daemon"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Set with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = ""
	commit  = ""
)

func main() {
	b := backend{getenv: os.Getenv, build: build()}
	os.Exit(cli.Main(os.Args[1:], b, os.Stdin, os.Stdout, os.Stderr))
}

func build() daemon.Build {
	b := daemon.Build{Version: version, Commit: commit, GoVersion: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" {
			b.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && b.Commit == "" {
				b.Commit = s.Value
			}
		}
	}
	if b.Version == "" || b.Version == "(devel)" {
		b.Version = "dev"
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	return b
}

// backend adapts the daemon package to the CLI's Backend.
type backend struct {
	getenv func(string) string
	build  daemon.Build
}

func (b backend) env(configFlag string) daemon.Env {
	return daemon.Env{Getenv: b.getenv, ConfigFlag: configFlag, Build: b.build}
}

func (b backend) Version() (string, string, string) {
	return b.build.Version, b.build.Commit, b.build.GoVersion
}

func (b backend) Locate(configFlag string) (cli.Location, error) {
	l, err := b.env(configFlag).Locate()
	return cli.Location(l), err
}

func (b backend) RunForeground(ctx context.Context, configFlag string, logOut io.Writer, ready func(cli.Ready)) error {
	return daemon.Run(ctx, b.env(configFlag), logOut, func(r daemon.Ready) { ready(cli.Ready(r)) })
}

func (b backend) ConfigCheck(configFlag string) (string, error) {
	return daemon.ConfigCheck(b.env(configFlag))
}

func (b backend) ConfigShow(configFlag string) ([]byte, error) {
	return daemon.ConfigShow(b.env(configFlag))
}

func (b backend) Doctor(ctx context.Context, configFlag string) []protocol.Check {
	return daemon.Doctor(ctx, b.env(configFlag))
}

func (b backend) AgentCreate(configFlag, name string) (protocol.Agent, error) {
	return daemon.AgentCreate(b.env(configFlag), name)
}

func (b backend) AgentList(configFlag string) ([]protocol.Agent, error) {
	return daemon.AgentList(b.env(configFlag))
}

func (b backend) AgentShow(configFlag, name string) (protocol.Agent, error) {
	return daemon.AgentShow(b.env(configFlag), name)
}

func (b backend) AgentPrompt(configFlag, name string) (string, error) {
	return daemon.AgentPrompt(b.env(configFlag), name)
}

func (b backend) AgentDelete(configFlag, name string) error {
	return daemon.AgentDelete(b.env(configFlag), name)
}

func (b backend) AgentRehatch(configFlag, name string, all bool) (protocol.Agent, error) {
	return daemon.AgentRehatch(b.env(configFlag), name, all)
}

func (b backend) SkillsList(configFlag, agent string) (protocol.SkillCatalog, error) {
	return daemon.SkillsList(b.env(configFlag), agent)
}

func (b backend) SkillShow(configFlag, agent, name string) (protocol.Skill, string, error) {
	return daemon.SkillShow(b.env(configFlag), agent, name)
}

func (b backend) SkillInstall(ctx context.Context, configFlag, agent, name string,
	confirm func(protocol.InstallPlan) bool, out, errOut io.Writer) (protocol.InstallPlan, error) {
	return daemon.SkillInstall(ctx, b.env(configFlag), agent, name, confirm, out, errOut)
}

func (b backend) MCPList(ctx context.Context, configFlag string) (protocol.MCPList, error) {
	return daemon.MCPList(ctx, b.env(configFlag))
}

func (b backend) MCPTools(ctx context.Context, configFlag, server string) ([]protocol.MCPTool, error) {
	return daemon.MCPTools(ctx, b.env(configFlag), server)
}

func (b backend) MCPTest(ctx context.Context, configFlag, name string) ([]protocol.MCPTool, error) {
	return daemon.MCPTest(ctx, b.env(configFlag), name)
}

func (b backend) MCPImport(configFlag, file string, write bool) (protocol.MCPImport, error) {
	return daemon.MCPImport(b.env(configFlag), file, write)
}

func (b backend) PairList(ctx context.Context, configFlag, channel string) (protocol.PairingList, error) {
	return daemon.PairList(ctx, b.env(configFlag), channel)
}

func (b backend) PairApprove(ctx context.Context, configFlag string, req protocol.PairApproveRequest) (protocol.Peer, error) {
	return daemon.PairApprove(ctx, b.env(configFlag), req)
}

func (b backend) PairRevoke(ctx context.Context, configFlag string, req protocol.PairRevokeRequest) error {
	return daemon.PairRevoke(ctx, b.env(configFlag), req)
}
