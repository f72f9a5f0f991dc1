package telegram

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// golden compares got with testdata/path, rewriting it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	path = filepath.Join("testdata", path)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s mismatch:\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
