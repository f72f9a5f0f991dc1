package skill

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeEnv is a machine with the given binaries and variables.
func fakeEnv(goos string, bins []string, vars map[string]string) Env {
	return Env{
		LookPath: func(file string) (string, error) {
			for _, b := range bins {
				if b == file {
					return "/usr/bin/" + b, nil
				}
			}
			return "", errors.New("not found")
		},
		Getenv: func(k string) string { return vars[k] },
		GOOS:   goos,
	}
}

// mustWriteSkill writes dir/<name>/SKILL.md.
func mustWriteSkill(tb testing.TB, dir, name, content string) string {
	tb.Helper()
	p := filepath.Join(dir, name, FileName)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// skillText builds a minimal SKILL.md.
func skillText(name, description, extra, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n" + extra + "---\n\n" + body
}
