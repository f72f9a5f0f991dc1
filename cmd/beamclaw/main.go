// Command beamclaw is the daemon and its CLI in one binary: main builds
// the command tree over internal/admin, and hands admin the daemon's Run.
package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/beamclaw/beamclaw-go/internal/admin"
	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/cli"
	"github.com/beamclaw/beamclaw-go/internal/daemon"
	"github.com/beamclaw/beamclaw-go/internal/initgc"
	"github.com/beamclaw/beamclaw-go/internal/procguard"
)

// Set with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = ""
	commit  = ""
)

func main() {
	procguard.InitIfAsked() // a tool process's namespace init

	initgc.Resume() // the collector was off while packages initialised
	dropDebugHandlers()
	b := build()
	open := func(configFile string) cli.Backend {
		run := func(ctx context.Context, logOut io.Writer, ready func(beamclaw.Ready)) error {
			return daemon.Run(ctx, daemon.Options{ConfigFile: configFile, Getenv: os.Getenv, Build: b,
				LogOut: logOut, Ready: ready})
		}
		return admin.New(admin.Options{ConfigFile: configFile, Getenv: os.Getenv, Build: b, Run: run})
	}
	os.Exit(cli.Main(os.Args[1:], open, os.Stdin, os.Stdout, os.Stderr))
}

// dropDebugHandlers empties http.DefaultServeMux. The embedded NATS
// server imports net/http/pprof, whose init registers /debug/pprof/ there;
// nothing of ours serves that mux, and now nothing could leak the
// daemon's memory, goroutines or profiles through it if something did.
func dropDebugHandlers() { http.DefaultServeMux = new(http.ServeMux) }

func build() beamclaw.Build {
	b := beamclaw.Build{Version: version, Commit: commit, GoVersion: runtime.Version()}
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
