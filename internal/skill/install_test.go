package skill

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlanInstall(t *testing.T) {
	specs := []InstallSpec{
		{Kind: "brew", Package: "gh", Bins: []string{"gh"}},
		{Kind: "apt", Package: "gh", Bins: []string{"gh"}},
		{Kind: "go", Package: "github.com/x/tool/cmd/tool", Bins: []string{"tool"}},
		{Kind: "npm", Package: "--global-evil", Bins: []string{"e"}},
		{Kind: "download", Package: "https://x.example/t.tgz"},
		{Kind: "pip", Package: "httpie; rm -rf /"},
		{Kind: "uv", Package: "ruff", Bins: []string{"ruff"}, OS: []string{"darwin"}},
		{Kind: "node", Package: "prettier@3.3.0", Bins: []string{"prettier"}},
	}
	tests := []struct {
		name    string
		env     Env
		argv    [][]string
		skipped int
	}{
		{
			name: "linux with apt and go",
			env:  fakeEnv("linux", []string{"apt-get", "go", "npm"}, nil),
			argv: [][]string{
				{"apt-get", "install", "-y", "gh"},
				{"go", "install", "github.com/x/tool/cmd/tool@latest"},
				{"npm", "install", "-g", "prettier@3.3.0"},
			},
			skipped: 5,
		},
		{
			name:    "mac with brew: apt alternative skipped",
			env:     fakeEnv("darwin", []string{"brew", "apt-get"}, nil),
			argv:    [][]string{{"brew", "install", "gh"}},
			skipped: 7,
		},
		{
			name:    "everything already installed",
			env:     fakeEnv("linux", []string{"apt-get", "go", "npm", "gh", "tool", "prettier"}, nil),
			skipped: 8,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := PlanInstall(Skill{Name: "x", Install: specs}, tt.env)
			var got [][]string
			for _, st := range p.Steps {
				got = append(got, st.Argv)
			}
			if diff := cmp.Diff(tt.argv, got); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
			if len(p.Skipped) != tt.skipped {
				t.Errorf("skipped %d, want %d: %q", len(p.Skipped), tt.skipped, p.Skipped)
			}
		})
	}
}

func TestInstallRunsExactArgv(t *testing.T) {
	p := Plan{Skill: "x", Steps: []Step{
		{Argv: []string{"apt-get", "install", "-y", "gh"}},
		{Argv: []string{"go", "install", "example.com/t@v1.2.3"}},
	}}
	var got [][]string
	run := RunnerFunc(func(_ context.Context, argv []string) error {
		got = append(got, argv)
		return nil
	})
	if err := Install(t.Context(), p, run); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"apt-get", "install", "-y", "gh"}, {"go", "install", "example.com/t@v1.2.3"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("argv (-want +got):\n%s", diff)
	}

	boom := errors.New("exit status 100")
	calls := 0
	failing := RunnerFunc(func(context.Context, []string) error { calls++; return boom })
	if err := Install(t.Context(), p, failing); !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("Install = %v after %d calls, want the first failure to stop it", err, calls)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Install(ctx, p, run); !errors.Is(err, context.Canceled) {
		t.Fatalf("Install on cancelled ctx = %v", err)
	}
}

func TestExecRunner(t *testing.T) {
	if _, err := exec.LookPath("echo"); err != nil {
		t.Skip("no echo binary")
	}
	var out bytes.Buffer
	r := ExecRunner{Stdout: &out, Stderr: &out}
	if err := r.Run(t.Context(), []string{"echo", "a; rm -rf /", "$(id)"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != "a; rm -rf / $(id)" {
		t.Fatalf("output %q: arguments must reach the program verbatim", got)
	}
	if err := r.Run(t.Context(), nil); err == nil {
		t.Fatal("empty argv accepted")
	}
	if err := r.Run(t.Context(), []string{"false"}); err == nil {
		t.Fatal("failing command reported success")
	}
}
