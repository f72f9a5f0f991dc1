package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// daemonID names the process that owns a container: the machine's boot
// id, the pid and the pid's start time (so a reused pid is not mistaken
// for the owner). It is written as "<boot>/<pid>/<start>" in the
// beamclaw.daemon label.
type daemonID struct {
	Boot  string
	PID   int
	Start uint64 // clock ticks since boot (field 22 of /proc/<pid>/stat)
}

func (d daemonID) String() string { return fmt.Sprintf("%s/%d/%d", d.Boot, d.PID, d.Start) }

func parseDaemonID(s string) (daemonID, bool) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 || parts[0] == "" {
		return daemonID{}, false
	}
	pid, err1 := strconv.Atoi(parts[1])
	start, err2 := strconv.ParseUint(parts[2], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return daemonID{}, false
	}
	return daemonID{Boot: parts[0], PID: pid, Start: start}, true
}

// procFS reads the facts daemonID needs; tests point it elsewhere.
type procFS struct{ root string }

func (p procFS) bootID() string {
	b, err := os.ReadFile(p.root + "/sys/kernel/random/boot_id")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// startTime is the start time of pid, or ok=false when it does not run:
// gone, or a zombie (killed, not yet reaped by its parent: a detached
// daemon's parent is init, which may take its time).
func (p procFS) startTime(pid int) (uint64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", p.root, pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces and parentheses: the
	// fields after it start after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" { // field 3: the state
		return 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64) // field 22 overall
	return v, err == nil
}

func (p procFS) self() daemonID {
	pid := os.Getpid()
	start, _ := p.startTime(pid)
	return daemonID{Boot: p.bootID(), PID: pid, Start: start}
}

// alive reports whether the daemon d still runs on this machine. A label
// that does not parse, or comes from another boot, is dead.
func (p procFS) alive(label string) bool {
	d, ok := parseDaemonID(label)
	if !ok || d.Boot != p.bootID() {
		return false
	}
	start, ok := p.startTime(d.PID)
	return ok && start == d.Start
}
