package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// MaxFileSize caps a workspace file or daily log written through the
// Store, and the part of any file read into the system prompt.
const MaxFileSize = 1 << 20

var tmpSeq atomic.Uint64

// ReadFile returns the content of one of the seven workspace files. A
// missing agent or file is KindNotFound.
func (s *Store) ReadFile(name, file string) (string, error) {
	if err := ValidFile(file); err != nil {
		return "", err
	}
	return s.read(name, file, "agent "+name+" has no "+file)
}

// WriteFile replaces one of the seven workspace files. Writing blank
// content to BOOTSTRAP.md completes the first-run ritual (the file is
// removed, see CompleteBootstrap).
func (s *Store) WriteFile(name, file, content string) error {
	if err := ValidFile(file); err != nil {
		return err
	}
	if file == FileBootstrap && strings.TrimSpace(content) == "" {
		return s.CompleteBootstrap(name)
	}
	return s.replace(name, file, content)
}

// replace writes file of agent name whole (atomically), within the size
// limit, and forgets its cached text.
func (s *Store) replace(name, file, content string) error {
	if err := checkSize(len(content)); err != nil {
		return err
	}
	return s.change(name, func(root *os.Root) error {
		defer s.cache.forget(filepath.Join(root.Name(), file))
		if err := writeAtomic(root, file, []byte(content)); err != nil {
			return fmt.Errorf("agent %s: %w", name, err)
		}
		return nil
	})
}

// AppendFile appends text to one of the seven workspace files (creating
// it), on a line of its own.
func (s *Store) AppendFile(name, file, text string) error {
	if err := ValidFile(file); err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" {
		return beamclaw.E("workspace.AppendFile", beamclaw.KindInvalid, "nothing to append", nil)
	}
	return s.change(name, func(root *os.Root) error {
		defer s.cache.forget(filepath.Join(root.Name(), file))
		return appendText(root, file, "", text)
	})
}

// CompleteBootstrap marks the first-run ritual done by removing
// BOOTSTRAP.md. Completing it twice is not an error.
func (s *Store) CompleteBootstrap(name string) error {
	return s.change(name, func(root *os.Root) error {
		if err := root.Remove(FileBootstrap); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("agent %s: remove %s: %w", name, FileBootstrap, err)
		}
		return nil
	})
}

// change runs fn on the agent's workspace root with the Store's lock held:
// every write goes through it.
func (s *Store) change(name string, fn func(root *os.Root) error) error {
	if err := ValidName(name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changeShared(s.sharedAgents, name, func() error {
		root, err := s.Root(name)
		if err != nil {
			return err
		}
		defer root.Close()
		return fn(root)
	})
}

// read returns file of the agent's workspace (readLimited); a missing
// file is KindNotFound with msg.
func (s *Store) read(name, file, msg string) (string, error) {
	root, err := s.Root(name)
	if err != nil {
		return "", err
	}
	defer root.Close()
	return readLimited(root, file, msg)
}

// readLimited reads a regular file under root, refusing files larger than
// MaxFileSize. A missing file is KindNotFound with msg.
func readLimited(root *os.Root, file, msg string) (string, error) {
	const op = "workspace.ReadFile"
	f, err := root.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return "", beamclaw.E(op, beamclaw.KindNotFound, msg, err)
	}
	if err != nil {
		return "", fmt.Errorf("open %s: %w", file, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("stat %s: %w", file, err)
	}
	if !fi.Mode().IsRegular() {
		return "", beamclaw.E(op, beamclaw.KindInvalid, file+" is not a regular file", nil)
	}
	if fi.Size() > MaxFileSize {
		return "", beamclaw.E(op, beamclaw.KindTooLarge, file+" is larger than 1 MiB", nil)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", file, err)
	}
	return string(b), nil
}

// writeAtomic writes data to a temporary file beside file and renames it
// into place, so readers never see a half-written file.
func writeAtomic(root *os.Root, file string, data []byte) error {
	dir, base := filepath.Split(file)
	tmp := dir + "." + base + ".tmp-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(tmpSeq.Add(1), 10)
	if err := root.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	if err := root.Rename(tmp, file); err != nil {
		_ = root.Remove(tmp)
		return fmt.Errorf("replace %s: %w", file, err)
	}
	return nil
}

// appendText appends text to file under root in one write. When the file
// already has content, text goes on a new line, preceded by sep.
func appendText(root *os.Root, file, sep, text string) error {
	f, err := root.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", file, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", file, err)
	}
	if err := checkSize(int(fi.Size()) + len(sep) + len(text) + 2); err != nil {
		return err
	}
	var b strings.Builder
	if fi.Size() > 0 {
		if !endsWithNewline(root, file, fi.Size()) {
			b.WriteByte('\n')
		}
		b.WriteString(sep)
	}
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	if _, err := f.WriteString(b.String()); err != nil {
		return fmt.Errorf("append %s: %w", file, err)
	}
	return nil
}

func endsWithNewline(root *os.Root, file string, size int64) bool {
	f, err := root.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return false
	}
	return last[0] == '\n'
}

func checkSize(n int) error {
	if n > MaxFileSize {
		return beamclaw.E("workspace", beamclaw.KindTooLarge, "workspace files are limited to 1 MiB", nil)
	}
	return nil
}

// FileHeartbeat is an agent's heartbeat checklist: read by the scheduler
// for each heartbeat, never put in the system prompt.
const FileHeartbeat = "HEARTBEAT.md"

// ReadHeartbeat returns the agent's HEARTBEAT.md. A missing file or agent
// is KindNotFound wrapping fs.ErrNotExist.
func (s *Store) ReadHeartbeat(name string) (string, error) {
	return s.read(name, FileHeartbeat, "agent "+name+" has no "+FileHeartbeat)
}

// ReadOperatorFile reads a file the operator edits (the admin API, the
// console): one of the seven of the prompt, or HEARTBEAT.md, which no
// tool of the agent writes.
func (s *Store) ReadOperatorFile(name, file string) (string, error) {
	if file == FileHeartbeat {
		return s.ReadHeartbeat(name)
	}
	return s.ReadFile(name, file)
}

// WriteOperatorFile replaces a file the operator edits (ReadOperatorFile).
func (s *Store) WriteOperatorFile(name, file, content string) error {
	if file != FileHeartbeat {
		return s.WriteFile(name, file, content)
	}
	return s.replace(name, file, content)
}
