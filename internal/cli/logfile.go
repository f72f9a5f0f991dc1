package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// printLog prints the matching lines of path (the last n when n > 0),
// then with follow the new ones as they come, reopening the file when it
// is rotated.
func (a *app) printLog(ctx context.Context, path string, f logFilter, n int, follow bool) error {
	file, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return fmt.Errorf("no log at %s yet: the detached daemon writes it (`beamclaw start`)", path)
		}
		return err
	}
	lr := &logReader{out: a.stdout, path: path, f: f, n: n, file: file, r: bufio.NewReaderSize(file, 64<<10),
		collect: n > 0}
	defer func() { _ = lr.file.Close() }()
	// Read what is there (its last n lines kept), then follow from where
	// that read stopped on the same file: a line written meanwhile is
	// neither skipped nor printed twice.
	if err := lr.readAll(); err != nil {
		return err
	}
	lr.collect = false
	for _, line := range lr.tail {
		fmt.Fprintln(lr.out, line)
	}
	if !follow {
		return nil
	}
	return lr.follow(ctx)
}

// logReader prints the matching lines of the log file at path as they
// are written, from one file to the next as the daemon rotates them.
type logReader struct {
	out  io.Writer
	path string
	f    logFilter
	n    int // how many of the last lines collect keeps

	file    *os.File      // the file read, at path or rotated since
	r       *bufio.Reader // reads file
	partial string        // a line still being written
	collect bool          // the file as it is now: keep its last n lines
	tail    []string      // the last n lines, while collect
}

// emit prints line if it matches, or keeps it among the last n.
func (lr *logReader) emit(line string) {
	if !lr.f.keep(line) {
		return
	}
	if lr.collect {
		lr.tail = append(lr.tail, line)
		if len(lr.tail) > lr.n {
			lr.tail = lr.tail[1:]
		}
		return
	}
	fmt.Fprintln(lr.out, line)
}

// readAll emits the whole lines written to the file since the last read.
func (lr *logReader) readAll() error {
	for {
		s, err := lr.r.ReadString('\n')
		if err == io.EOF {
			lr.partial += s // a line still being written
			return nil
		}
		if err != nil {
			return err
		}
		lr.emit(strings.TrimRight(lr.partial+s, "\n"))
		lr.partial = ""
	}
}

// follow prints the new lines until ctx ends.
func (lr *logReader) follow(ctx context.Context) error {
	// Polled often enough that the daemon rarely rotates more than
	// max_files times between two looks (a file removed before it was
	// opened here is lost to the follower).
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if err := lr.readAll(); err != nil {
			return err
		}
		// Rotated: the path names a new file. Finish ours (read above),
		// then the files rotated after it, oldest first, then the new one.
		cur, err1 := lr.file.Stat()
		now, err2 := os.Stat(lr.path)
		if err1 != nil || err2 != nil || os.SameFile(cur, now) {
			continue
		}
		if err := lr.rotated(cur); err != nil {
			return err
		}
	}
}

// rotated moves on from the file read (cur), which the daemon rotated:
// the rest of it, the files rotated after it, then the file now at path.
// When that file cannot be opened it stays on cur, to try again at the
// next look.
func (lr *logReader) rotated(cur os.FileInfo) error {
	if err := lr.readAll(); err != nil { // what reached our file before it was rotated
		return err
	}
	if lr.partial != "" {
		lr.emit(lr.partial)
		lr.partial = ""
	}
	// Open the new file before the rotated ones, so a rotation in
	// between shows up as the next file being among them.
	next, err := os.Open(lr.path)
	if err != nil {
		return nil
	}
	nextInfo, err := next.Stat()
	if err != nil {
		_ = next.Close()
		return nil
	}
	for _, older := range rotatedAfter(lr.path, cur, nextInfo) {
		err := lr.printFrom(older)
		_ = older.Close()
		if err != nil {
			_ = next.Close()
			return err
		}
	}
	_ = lr.file.Close()
	lr.file, lr.partial = next, ""
	lr.r.Reset(lr.file)
	return nil
}

// rotatedAfter opens the rotated files newer than cur (path.N-1 ...
// path.1 when cur is now path.N; every rotated file when cur is gone, past
// max_files), oldest first, leaving out next (the file now at path) and
// any file opened twice because a rotation moved it meanwhile.
func rotatedAfter(path string, cur, next os.FileInfo) []*os.File {
	var newer []*os.File
	var infos []os.FileInfo
	missing := 0
	for i := 1; i < 100 && missing < 3; i++ {
		f, err := os.Open(fmt.Sprintf("%s.%d", path, i))
		if err != nil {
			// A rotation renames FILE.n to FILE.n+1 before FILE to FILE.1:
			// an index can be missing for a moment, with older files after it.
			missing++
			continue
		}
		missing = 0
		fi, err := f.Stat()
		if err != nil || os.SameFile(fi, cur) {
			_ = f.Close()
			break
		}
		dup := os.SameFile(fi, next)
		for _, seen := range infos {
			dup = dup || os.SameFile(fi, seen)
		}
		if dup {
			_ = f.Close()
			continue
		}
		newer, infos = append(newer, f), append(infos, fi)
	}
	slices.Reverse(newer)
	return newer
}

// printFrom prints the matching lines of an open file, from its start.
func (lr *logReader) printFrom(file *os.File) error {
	b, err := io.ReadAll(file)
	if err != nil {
		return nil // gone meanwhile
	}
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line != "" && lr.f.keep(line) {
			fmt.Fprintln(lr.out, line)
		}
	}
	return nil
}
