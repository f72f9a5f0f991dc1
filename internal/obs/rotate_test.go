package obs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRotatingFileKeepsMaxFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beamclaw.log")
	r, err := OpenRotating(path, RotateOptions{MaxSize: 100, MaxFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 { // 12 lines of 30 bytes: four files' worth
		if _, err := fmt.Fprintf(r, "line %02d %s\n", i, strings.Repeat("x", 21)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		return string(b)
	}
	cur, one, two := read(path), read(path+".1"), read(path+".2")
	if !strings.HasPrefix(cur, "line 09") || !strings.Contains(cur, "line 11") {
		t.Errorf("current file:\n%s", cur)
	}
	if !strings.HasPrefix(one, "line 06") || !strings.HasPrefix(two, "line 03") {
		t.Errorf("rotated files:\n.1: %s\n.2: %s", one, two)
	}
	if _, err := os.Stat(path + ".3"); !os.IsNotExist(err) {
		t.Errorf("a third rotated file is kept: %v", err)
	}
	for _, f := range []string{cur, one, two} {
		if len(f) > 100 {
			t.Errorf("a file passed MaxSize: %d bytes", len(f))
		}
	}
}
