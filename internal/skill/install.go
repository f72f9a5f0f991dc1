package skill

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Runner runs one command, given as argv (never through a shell).
type Runner interface {
	Run(ctx context.Context, argv []string) error
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, argv []string) error

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, argv []string) error { return f(ctx, argv) }

// ExecRunner runs commands as child processes, wiring their output to
// Stdout and Stderr.
type ExecRunner struct {
	Stdout, Stderr io.Writer
}

var _ Runner = ExecRunner{}

// Run starts argv[0] with the rest as its arguments and waits for it.
func (r ExecRunner) Run(ctx context.Context, argv []string) error {
	if len(argv) == 0 {
		return beamclaw.E("skill.ExecRunner", beamclaw.KindInvalid, "empty command", nil)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = r.Stdout, r.Stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("run %s: %w", strings.Join(argv, " "), err)
	}
	return nil
}

// Step is one command of an install plan.
type Step struct {
	Spec InstallSpec
	Argv []string
}

// Plan is what Install will run for a skill, for the user to confirm.
type Plan struct {
	Skill string
	Steps []Step
	// Skipped explains each declared spec that will not run.
	Skipped []string
}

// installers maps a spec kind to the program that performs it and the
// argv that installs a package.
var installers = map[string]struct {
	bin  string
	argv func(pkg string) []string
}{
	"apt":  {"apt-get", func(p string) []string { return []string{"apt-get", "install", "-y", p} }},
	"brew": {"brew", func(p string) []string { return []string{"brew", "install", p} }},
	"npm":  {"npm", func(p string) []string { return []string{"npm", "install", "-g", p} }},
	"node": {"npm", func(p string) []string { return []string{"npm", "install", "-g", p} }},
	"go":   {"go", func(p string) []string { return []string{"go", "install", goVersioned(p)} }},
	"pip":  {"python3", func(p string) []string { return []string{"python3", "-m", "pip", "install", "--user", p} }},
	"uv":   {"uv", func(p string) []string { return []string{"uv", "tool", "install", p} }},
}

// packageRE is what a package name may look like: no leading '-' (no
// option injection), no spaces or shell characters.
var packageRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9@._/+:=~-]{0,199}$`) })

func goVersioned(p string) string {
	if strings.Contains(p, "@") {
		return p
	}
	return p + "@latest"
}

// PlanInstall decides which of s's install specs to run here. Specs are
// taken in order; one is skipped when it is for another OS, its kind is
// unknown, its package name is unsafe, its installer is not on PATH, or
// every binary it provides is already present (or provided by an earlier
// step), so alternatives (brew or apt) do not both run.
func PlanInstall(s Skill, env Env) Plan {
	env = env.withDefaults()
	p := Plan{Skill: s.Name}
	provided := map[string]bool{}
	for _, spec := range s.Install {
		skip := func(why string) {
			p.Skipped = append(p.Skipped, fmt.Sprintf("%s %s: %s", spec.Kind, spec.Package, why))
		}
		inst, known := installers[spec.Kind]
		switch {
		case !osMatches(spec.OS, env.GOOS) || (spec.Kind == "apt" && env.GOOS != "linux"):
			skip("not for " + env.GOOS)
		case !known:
			skip("unsupported install kind")
		case !packageRE().MatchString(spec.Package):
			skip("unsafe or missing package name")
		case !env.has(inst.bin):
			skip(inst.bin + " not found on PATH")
		case len(spec.Bins) > 0 && !slices.ContainsFunc(spec.Bins, func(b string) bool { return !provided[b] && !env.has(b) }):
			skip("already installed")
		default:
			p.Steps = append(p.Steps, Step{Spec: spec, Argv: inst.argv(spec.Package)})
			for _, b := range spec.Bins {
				provided[b] = true
			}
		}
	}
	return p
}

// Install runs the plan's steps in order through run, stopping at the
// first failure. Callers show the plan and get the user's consent first.
func Install(ctx context.Context, p Plan, run Runner) error {
	for _, st := range p.Steps {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("install %s: %w", p.Skill, err)
		}
		if err := run.Run(ctx, slices.Clone(st.Argv)); err != nil {
			return fmt.Errorf("install %s: %s: %w", p.Skill, strings.Join(st.Argv, " "), err)
		}
	}
	return nil
}
