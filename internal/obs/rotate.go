package obs

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// RotateOptions configure a RotatingFile.
type RotateOptions struct {
	// MaxSize rotates the file before a write would take it past this
	// many bytes (obs.log.max_size_mb); 0 never rotates.
	MaxSize int64
	// MaxFiles is how many rotated files are kept (FILE.1 the newest, up
	// to FILE.MaxFiles; obs.log.max_files); older ones are removed.
	MaxFiles int
	// Std points the process's stdout and stderr at the current file, so
	// that what bypasses the logger (a crash's stack trace) lands there
	// too, also after a rotation.
	Std bool
}

// RotatingFile is a log file that rotates by size: FILE becomes FILE.1,
// FILE.1 becomes FILE.2, ... and a new FILE is opened. It is safe for
// concurrent use; a failed rotation keeps writing to the current file.
type RotatingFile struct {
	path string
	opts RotateOptions

	mu   sync.Mutex
	f    *os.File
	size int64
}

// OpenRotating opens (appending to) path, mode 0600.
func OpenRotating(path string, opts RotateOptions) (*RotatingFile, error) {
	r := &RotatingFile{path: path, opts: opts}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *RotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("stat log file: %w", err)
	}
	if r.opts.Std {
		for _, fd := range []int{1, 2} {
			if err := unix.Dup3(int(f.Fd()), fd, 0); err != nil {
				_ = f.Close()
				return fmt.Errorf("point fd %d at the log file: %w", fd, err)
			}
		}
	}
	r.f, r.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past MaxSize.
func (r *RotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.opts.MaxSize > 0 && r.size > 0 && r.size+int64(len(p)) > r.opts.MaxSize {
		r.rotate() // on failure it goes on writing to the current file
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate shifts FILE.n to FILE.n+1 (dropping the oldest), FILE to FILE.1,
// and opens a new FILE.
func (r *RotatingFile) rotate() {
	keep := max(r.opts.MaxFiles, 0)
	_ = os.Remove(fmt.Sprintf("%s.%d", r.path, keep))
	for i := keep - 1; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", r.path, i), fmt.Sprintf("%s.%d", r.path, i+1))
	}
	if keep == 0 {
		_ = os.Remove(r.path)
	} else if err := os.Rename(r.path, r.path+".1"); err != nil {
		return
	}
	old := r.f
	if err := r.open(); err != nil {
		r.f = old // keep writing where we were
		return
	}
	_ = old.Close()
}

// Close closes the file.
func (r *RotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.f.Close()
}
