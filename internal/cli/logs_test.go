package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// appendOnFirst appends a line to the log as soon as the first line is
// printed (the tail of -f -n 1), before the follow loop looks again, and
// ends the follow once that line is printed.
type appendOnFirst struct {
	mu     sync.Mutex
	out    strings.Builder
	path   string
	cancel context.CancelFunc
	t      *testing.T
}

func (w *appendOnFirst) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	first := w.out.Len() == 0
	w.out.Write(p)
	if first {
		f, err := os.OpenFile(w.path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			w.t.Error(err)
			return len(p), nil
		}
		_, _ = f.WriteString("time=2026-11-25T10:00:03Z level=INFO msg=written-right-after-the-tail\n")
		_ = f.Close()
	}
	if strings.Contains(w.out.String(), "written-right-after-the-tail") {
		w.cancel()
	}
	return len(p), nil
}

// logs -f -n 1 prints the last line, then every line written after it —
// also one written the moment the last line was printed.
func TestLogsFollowMissesNothingAfterTheTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beamclaw.log")
	lines := "time=2026-11-25T10:00:00Z level=INFO msg=one\ntime=2026-11-25T10:00:01Z level=INFO msg=two\n"
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w := &appendOnFirst{path: path, cancel: cancel, t: t}
	a := &app{stdout: w}
	if err := a.printLog(ctx, path, logFilter{}, 1, true); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	got := w.out.String()
	if strings.Contains(got, "msg=one") || !strings.Contains(got, "msg=two") || !strings.Contains(got, "written-right-after-the-tail") {
		t.Errorf("printed:\n%s", got)
	}
}
