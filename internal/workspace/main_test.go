package workspace

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/leak"

	"github.com/beamclaw/beamclaw-go/internal/clock"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestMain(m *testing.M) { leak.VerifyTestMain(m) }

// fixedNow is the fake "now" of the tests: 2026-11-20 14:05 UTC.
var fixedNow = time.Date(2026, 11, 20, 14, 5, 0, 0, time.UTC)

// mustStore returns a Store on a fresh temporary agents directory.
func mustStore(tb testing.TB) *Store {
	tb.Helper()
	return New(filepath.Join(tb.TempDir(), "agents"), clock.NewFake(fixedNow))
}

// mustCreate creates agent name in s.
func mustCreate(tb testing.TB, s *Store, name string) string {
	tb.Helper()
	if err := s.Create(name); err != nil {
		tb.Fatalf("Create(%q): %v", name, err)
	}
	dir, err := s.Dir(name)
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// mustWrite writes a file under dir, creating parents.
func mustWrite(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
}
