package admin

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/procguard"
)

func TestMain(m *testing.M) {
	procguard.InitIfAsked() // the daemon and doctor start this binary as a tool process's init
	goleak.VerifyTestMain(m)
}

// testEnv makes a BEAMCLAW_HOME with configYAML (a default one listening
// on a free port when empty) and returns its Admin.
func testEnv(t *testing.T, configYAML string) *Admin {
	t.Helper()
	home := t.TempDir()
	if configYAML == "" {
		configYAML = "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\n"
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(configYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"BEAMCLAW_HOME": home, "HOME": home}
	return New(Options{Getenv: func(k string) string { return vars[k] }, Build: beamclaw.Build{Version: "test"}})
}
