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
	l, err := daemon.Locate(b.env(configFlag))
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
