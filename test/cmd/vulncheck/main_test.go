package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stream is govulncheck -format json's shape: indented objects one after
// another. GO-2026-0001 and GO-2026-0002 are called, GO-2026-0003 is only
// imported.
const stream = `{
  "config": {"protocol_version": "v1.0.0", "scanner_version": "v1.9.0", "db": "file:///db", "go_version": "go1.27.3", "scan_level": "symbol"}
}
{"progress": {"message": "Scanning your code..."}}
{"osv": {"id": "GO-2026-0001", "summary": "no fix anywhere"}}
{"osv": {"id": "GO-2026-0002", "summary": "fixed upstream"}}
{"osv": {"id": "GO-2026-0003", "summary": "imported only"}}
{"finding": {"osv": "GO-2026-0001", "trace": [{"module": "example.com/a", "version": "v1.0.0"}]}}
{"finding": {"osv": "GO-2026-0001", "trace": [
  {"module": "example.com/a", "version": "v1.0.0", "package": "example.com/a", "function": "Get"},
  {"module": "github.com/beamclaw/beamclaw-go", "package": "github.com/beamclaw/beamclaw-go/internal/x", "function": "Run", "position": {"filename": "internal/x/x.go", "line": 7}}]}}
{"finding": {"osv": "GO-2026-0002", "fixed_version": "v1.2.0", "trace": [
  {"module": "example.com/b", "version": "v1.1.0", "package": "example.com/b", "function": "Read", "receiver": "*Conn"},
  {"module": "github.com/beamclaw/beamclaw-go", "package": "github.com/beamclaw/beamclaw-go/internal/y", "function": "Serve"}]}}
{"finding": {"osv": "GO-2026-0003", "fixed_version": "v2.0.0", "trace": [{"module": "example.com/c", "version": "v1.0.0", "package": "example.com/c"}]}}
`

func allowFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "allow.txt")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCalledVulnerabilitiesFailUnlessAllowed(t *testing.T) {
	cases := []struct {
		name  string
		allow string
		code  int
		want  []string
	}{
		{"one called not allowed", "# comment\nGO-2026-0001 no fix; mitigated here\n", 1, []string{
			"allowed  GO-2026-0001 in example.com/a@v1.0.0 (no fix)",
			"CALLED   GO-2026-0002 in example.com/b@v1.1.0 (fixed in v1.2.0): fixed upstream",
			"github.com/beamclaw/beamclaw-go/internal/y.Serve\n         example.com/b.Conn.Read",
			"2 called (1 allowed), 1 more", "FAIL: 1 to fix"}},
		{"both allowed", "GO-2026-0001 reason\nGO-2026-0002 another reason # and a comment\n", 0, []string{
			"2 called (2 allowed), 1 more in imported packages"}},
		{"a stale entry", "GO-2026-0001 r\nGO-2026-0002 r\nGO-2026-0003 imported, not called\n", 1, []string{
			"STALE    GO-2026-0003 is allowed but no longer called"}},
		{"an entry without a reason", "GO-2026-0001\n", 2, []string{"GO-2026-0001 has no reason"}},
		{"not an ID", "CVE-2026-1 reason\n", 2, []string{"is not a vulnerability ID"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			if code := run(strings.NewReader(stream), &out, allowFile(t, c.allow)); code != c.code {
				t.Errorf("exit %d, want %d:\n%s", code, c.code, out.String())
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestNotGovulncheckJSONIsAnError(t *testing.T) {
	var out strings.Builder
	if code := run(strings.NewReader("Scanning your code...\n"), &out, allowFile(t, "")); code != 2 {
		t.Errorf("exit %d on text output:\n%s", code, out.String())
	}
	out.Reset()
	if code := run(strings.NewReader(`{"progress": {"message": "x"}}`), &out, allowFile(t, "")); code != 2 || !strings.Contains(out.String(), "no config message") {
		t.Errorf("exit %d without a config message:\n%s", code, out.String())
	}
}
