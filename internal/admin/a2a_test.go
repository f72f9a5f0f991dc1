package admin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// A target is a URL, or a peer whose url and token come from the config;
// a token is only ever read from the environment.
func TestA2ATarget(t *testing.T) {
	home := t.TempDir()
	cfg := "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\na2a:\n  peers:\n" +
		"    research: {url: \"https://research.example.com\", token: {env: RESEARCH_TOKEN}}\n" +
		"    inbound: {token: {env: INBOUND_TOKEN}}\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"BEAMCLAW_HOME": home, "RESEARCH_TOKEN": strings.Repeat("r", 40), "MINE": "tok"}
	a := New(Options{Getenv: func(k string) string { return vars[k] }, Build: beamclaw.Build{Version: "test"}})
	tg, err := a.a2aTarget("research", "")
	if err != nil || tg.URL != "https://research.example.com" || tg.Token != vars["RESEARCH_TOKEN"] {
		t.Fatalf("peer target: %+v %v", tg, err)
	}
	tg, err = a.a2aTarget("http://127.0.0.1:9", "MINE")
	if err != nil || tg.URL != "http://127.0.0.1:9" || tg.Token != "tok" {
		t.Fatalf("URL target: %+v %v", tg, err)
	}
	for _, bad := range [][2]string{{"nobody", ""}, {"inbound", ""}, {"http://h", "UNSET"}} {
		if _, err := a.a2aTarget(bad[0], bad[1]); err == nil {
			t.Errorf("target %q (token env %q) accepted", bad[0], bad[1])
		}
	}
}
