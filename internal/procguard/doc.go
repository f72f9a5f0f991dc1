// Package procguard keeps the daemon's secrets out of reach of the
// programs its tools start (bash, terminal). Harden makes the daemon's
// /proc entries (environ, mem) and ptrace unreachable for processes of its
// own user (PR_SET_DUMPABLE 0). That is not enough when the daemon runs as
// root: a root child reads them anyway. Isolate then starts each tool
// process in a user namespace of its own that maps root to root: files
// are reached as before, but the child holds no capability over the
// daemon, so the kernel refuses it the daemon's /proc entries.
//
// It imports only the standard library; the daemon calls Harden and hands
// Isolate to the process tools.
package procguard
