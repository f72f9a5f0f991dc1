package skill

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
)

// Env is what eligibility and install planning look at; tests inject
// their own.
type Env struct {
	LookPath func(file string) (string, error)
	Getenv   func(key string) string
	GOOS     string
}

// DefaultEnv looks at the real machine.
func DefaultEnv() Env {
	return Env{LookPath: exec.LookPath, Getenv: os.Getenv, GOOS: runtime.GOOS}
}

// Status is a skill's eligibility on this machine.
type Status struct {
	Eligible bool
	// Missing explains, one reason each, why the skill is not eligible.
	Missing []string
}

// osAliases maps the OS names people write to runtime.GOOS values.
var osAliases = map[string]string{"macos": "darwin", "osx": "darwin", "mac": "darwin", "win32": "windows", "win": "windows"}

func normOS(o string) string {
	o = strings.ToLower(strings.TrimSpace(o))
	if a, ok := osAliases[o]; ok {
		return a
	}
	return o
}

// Check reports whether s can be used here: every required binary on
// PATH, at least one of AnyBins, every required environment variable set,
// and the OS listed (when any are).
func Check(s Skill, env Env) Status {
	env = env.withDefaults()
	var missing []string
	for _, b := range s.Requires.Bins {
		if !env.has(b) {
			missing = append(missing, "binary "+b+" not found on PATH")
		}
	}
	if len(s.Requires.AnyBins) > 0 && !slices.ContainsFunc(s.Requires.AnyBins, env.has) {
		missing = append(missing, "none of the binaries "+strings.Join(s.Requires.AnyBins, ", ")+" found on PATH")
	}
	for _, k := range s.Requires.Env {
		if strings.TrimSpace(env.Getenv(k)) == "" {
			missing = append(missing, "environment variable "+k+" not set")
		}
	}
	if !osMatches(s.Requires.OS, env.GOOS) {
		missing = append(missing, "needs OS "+strings.Join(s.Requires.OS, " or ")+" (this is "+env.GOOS+")")
	}
	return Status{Eligible: len(missing) == 0, Missing: missing}
}

func osMatches(list []string, goos string) bool {
	if len(list) == 0 {
		return true
	}
	return slices.ContainsFunc(list, func(o string) bool { return normOS(o) == goos })
}

func (e Env) has(bin string) bool {
	_, err := e.LookPath(bin)
	return err == nil
}

func (e Env) withDefaults() Env {
	d := DefaultEnv()
	if e.LookPath == nil {
		e.LookPath = d.LookPath
	}
	if e.Getenv == nil {
		e.Getenv = d.Getenv
	}
	if e.GOOS == "" {
		e.GOOS = d.GOOS
	}
	return e
}
