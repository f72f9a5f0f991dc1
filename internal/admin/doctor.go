package admin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/procguard"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func ok(name, detail string) protocol.Check {
	return protocol.Check{Name: name, Level: "ok", Detail: detail}
}

func warn(name, detail, fix string) protocol.Check {
	return protocol.Check{Name: name, Level: "warn", Detail: detail, Fix: fix}
}

func fail(name, detail, fix string) protocol.Check {
	return protocol.Check{Name: name, Level: "fail", Detail: detail, Fix: fix}
}

// Doctor checks what a working install needs, each with a fix.
func (a *Admin) Doctor(ctx context.Context) []protocol.Check {
	cfg, err := a.load()
	paths := cfg.Paths
	if err != nil {
		home, _ := config.HomeDir(a.getenv)
		return []protocol.Check{fail("config", err.Error(), "fix the lines named above; `beamclaw config check` repeats them"),
			homeCheck(home)}
	}
	out := []protocol.Check{ok("config", "valid ("+paths.ConfigFile+")")}
	switch err := cfg.ValidateRuntime(a.getenv); {
	case err != nil:
		out[0] = fail("config", err.Error(), "set the environment variables named above")
	case !cfg.Found:
		out[0] = warn("config", "no config file at "+paths.ConfigFile+": the built-in defaults apply",
			"write one to change them: beamclaw config show > "+paths.ConfigFile)
	}
	for _, w := range cfg.Warnings() {
		out = append(out, warn("config", w, "remove the key, or leave it for when the subsystem lands"))
	}
	out = append(out, homeCheck(paths.Home))
	pid, daemonUp := client.Running(ctx, paths.Socket)
	out = append(out, a.storeCheck(ctx, paths, pid, daemonUp))
	if daemonUp {
		out = append(out, a.daemonProviderChecks(ctx, paths)...)
	} else {
		out = append(out, providerChecks(cfg.Config, a.getenv, paths.AgentNames(cfg.Core.DefaultAgent))...)
	}
	out = append(out, a.sandboxCheck(ctx, cfg))
	out = append(out, toolIsolationCheck())
	out = append(out, portCheck(cfg.Gateway.HTTP.Addr, daemonUp))
	out = append(out, a.mcpChecks(ctx, cfg, daemonUp)...)
	if cfg.Cluster.Enabled {
		out = append(out, a.clusterCheck(ctx, daemonUp))
	}
	return out
}

func homeCheck(home string) protocol.Check {
	if home == "" {
		return fail("home", "no home directory", "set BEAMCLAW_HOME")
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fail("home", err.Error(), "make "+home+" writable or set BEAMCLAW_HOME")
	}
	f, err := os.CreateTemp(home, ".doctor-*")
	if err != nil {
		return fail("home", home+" is not writable: "+err.Error(), "fix its permissions or set BEAMCLAW_HOME")
	}
	_ = f.Close()
	_ = os.Remove(f.Name())
	return ok("home", home+" writable")
}

// storeCheck opens the database (or asks the daemon that holds it) and
// checks every page: damage is a failing line with the way out.
func (a *Admin) storeCheck(ctx context.Context, paths config.Paths, pid int, daemonUp bool) protocol.Check {
	if !daemonUp {
		db, err := store.Open(paths.DB, store.Options{PIDFile: paths.PIDFile})
		switch {
		case errors.Is(err, store.ErrInUse):
			return fail("store", err.Error(), "stop the other process holding the database")
		case errors.Is(err, store.ErrDamaged):
			return fail("store", err.Error(), "restore a backup (docs/running.md#backups) or move the file aside")
		case err != nil:
			return fail("store", err.Error(), "check the file's permissions, or move it aside to start fresh")
		}
		_ = db.Close()
	}
	res, err := a.DBCheck(ctx)
	switch {
	case err != nil:
		return fail("store", err.Error(), "run `beamclaw db check` again; restore a backup if it fails")
	case !res.OK:
		return fail("store", res.Problem, "restore a backup (docs/running.md#backups) or move the file aside")
	case daemonUp:
		return ok("store", fmt.Sprintf("%s owned by the running daemon (pid %d); every page checks out", paths.DB, pid))
	}
	return ok("store", paths.DB+" opens; every page checks out")
}

// providerChecks is the providers' state as this process's environment
// sees it (no daemon runs: it will start with this environment).
func providerChecks(cfg *config.Config, getenv func(string) string, agents []string) []protocol.Check {
	problems := cfg.ProviderProblems(getenv, agents)
	if len(problems) == 0 {
		return []protocol.Check{ok("providers", "every provider has its key; every agent has a usable provider")}
	}
	out := make([]protocol.Check, 0, len(problems))
	for _, p := range problems {
		out = append(out, warn("providers", p, "export the variable, then `beamclaw restart`"))
	}
	return out
}

// daemonProviderChecks asks the running daemon: its environment, not
// this shell's, decides which providers work.
func (a *Admin) daemonProviderChecks(ctx context.Context, paths config.Paths) []protocol.Check {
	c := client.NewUnix(paths.Socket)
	defer c.Close()
	st, err := c.Status(ctx)
	if err != nil {
		return []protocol.Check{warn("providers", "could not ask the running daemon: "+err.Error(), "run `beamclaw status`")}
	}
	var out []protocol.Check
	for _, w := range st.Warnings {
		if strings.HasPrefix(w, "provider ") || strings.HasPrefix(w, "agent ") {
			out = append(out, warn("providers", w+" (as the running daemon sees it)",
				"export the variable in the daemon's environment, then `beamclaw restart`"))
		}
	}
	if len(out) == 0 {
		out = append(out, ok("providers", "the running daemon has a key for every provider; every agent has a usable provider"))
	}
	return out
}

func portCheck(addr string, daemonUp bool) protocol.Check {
	if daemonUp {
		return ok("port", addr+" served by the running daemon")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fail("port", addr+" is taken: "+err.Error(), "stop what listens there or set gateway.http.addr")
	}
	_ = ln.Close()
	return ok("port", addr+" free")
}

// toolIsolationCheck says whether bash and terminal run in namespaces of
// their own (probed by starting one, as the daemon does).
func toolIsolationCheck() protocol.Check {
	in := procguard.NewIsolator().Probe()
	if in.Namespaces {
		return ok("tool isolation", "bash and terminal run in user, PID and mount namespaces of their own: they see no other process (the daemon, its MCP servers)")
	}
	return warn("tool isolation", in.Err.Error(), procguard.Fix)
}
