// Package procguard keeps the daemon's secrets, and its other children's,
// out of reach of the programs its tools start (bash, terminal). Harden
// makes the daemon's /proc entries (environ, mem) and ptrace unreachable
// for processes of its own user (PR_SET_DUMPABLE 0). That leaves the
// daemon's other children (MCP servers holding their tokens in their
// environment), the user's other programs, and everything when the daemon
// runs as root. An Isolator therefore starts each tool process under an
// init of its own (this binary, started with InitArg: RunInit) in new
// user, PID and mount namespaces with a /proc of its own: the tool sees
// only its own processes, and they all end when it does. The host must
// allow user namespaces; the first use probes once, and the daemon and
// `beamclaw doctor` say what is in effect.
//
// It imports only the standard library; main runs RunInit, the daemon
// calls Harden and hands the Isolator to the process tools.
package procguard

import "os"

// Fix is what to do when tool processes cannot be isolated.
const Fix = "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu also kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for beamclaw), or run MCP servers that hold secrets as another user"

// InitArg, as the binary's first argument, makes it the init of a tool
// process's namespaces (RunInit); it is never typed by a person.
const InitArg = "__beamclaw_tool_init"

// InitIfAsked runs RunInit and exits when the process was started as a
// tool process's namespace init (its first argument InitArg). main and the
// TestMain of every package whose tests start tool processes or probe for
// them (the daemon's, doctor's) call it first: the Isolator starts the
// running binary, whatever it is.
func InitIfAsked() {
	if len(os.Args) > 1 && os.Args[1] == InitArg {
		os.Exit(RunInit(os.Args[2:]))
	}
}
