package sandbox

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// waitReader reads a child process's stdout and reports the process's
// failure in place of io.EOF, so that a consumer never mistakes a
// truncated stream for a complete one.
type waitReader struct {
	r    io.Reader
	wait func() error
	once sync.Once
	err  error
	eof  bool
	kill func() error
}

func (w *waitReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if errors.Is(err, io.EOF) {
		w.eof = true
		if werr := w.finish(); werr != nil {
			return n, werr
		}
	}
	return n, err
}

// finish waits for the process (killing it first when its output was not
// read to the end, so it cannot block on a full pipe).
func (w *waitReader) finish() error {
	w.once.Do(func() {
		if !w.eof && w.kill != nil {
			_ = w.kill()
		}
		w.err = w.wait()
	})
	return w.err
}

// tailBuffer keeps the last tailMax bytes written (error context).
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

const tailMax = 2048

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// capBuffer keeps the first max bytes written and counts the rest.
type capBuffer struct {
	b       strings.Builder
	max     int64
	dropped int64
}

func (c *capBuffer) Write(p []byte) (int, error) {
	room := c.max - int64(c.b.Len())
	switch {
	case room >= int64(len(p)):
		c.b.Write(p)
	case room > 0:
		c.b.Write(p[:room])
		c.dropped += int64(len(p)) - room
	default:
		c.dropped += int64(len(p))
	}
	return len(p), nil
}

// String is the kept output, with a truncation line when bytes were
// dropped (here or, counted in extra, by the runner).
func (c *capBuffer) String(extra int64) string {
	n := c.dropped + extra
	if n == 0 {
		return c.b.String()
	}
	s := c.b.String()
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s + fmt.Sprintf("[output truncated: %d bytes omitted]", n)
}
