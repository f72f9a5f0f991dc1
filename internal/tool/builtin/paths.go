package builtin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// FileOptions configure read_file, write_file and delete_file.
type FileOptions struct {
	// Roots are directories the file tools may reach besides the agent
	// workspace (tools.files.roots). Relative paths always resolve
	// against the workspace, or against Roots[0] when a run has none.
	Roots []string
	// MaxReadBytes caps what read_file reads of one file (default 1 MiB).
	MaxReadBytes int64
	// MaxWriteBytes caps write_file's content (default 10 MiB).
	MaxWriteBytes int
}

func (o FileOptions) withDefaults() FileOptions {
	o.MaxReadBytes = orInt(o.MaxReadBytes, 1<<20)
	o.MaxWriteBytes = orInt(o.MaxWriteBytes, 10<<20)
	return o
}

// confined is a path opened for a file tool: the root it lies in and the
// path relative to that root. All access goes through root (os.Root), so
// "..", absolute paths and symlinks cannot leave it.
type confined struct {
	root  *os.Root
	rel   string
	shown string // the path as the model gave it, for messages
}

func (c *confined) Close() error { return c.root.Close() }

// openConfined maps a tool's path argument to a root and a relative path.
func openConfined(workspace string, roots []string, path string) (*confined, error) {
	if path == "" {
		return nil, errors.New("path is empty")
	}
	if strings.ContainsRune(path, 0) {
		return nil, errors.New("path contains a NUL byte")
	}
	all := make([]string, 0, len(roots)+1)
	if workspace != "" {
		all = append(all, workspace)
	}
	all = append(all, roots...)
	if len(all) == 0 {
		return nil, errors.New("no workspace or file roots are configured")
	}
	base, rel, err := pickRoot(all, path)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(base)
	if err != nil {
		return nil, fmt.Errorf("open root %s: %w", base, err)
	}
	return &confined{root: root, rel: rel, shown: path}, nil
}

func pickRoot(roots []string, path string) (base, rel string, err error) {
	if !filepath.IsAbs(path) {
		if !filepath.IsLocal(path) {
			return "", "", fmt.Errorf("path %q escapes the workspace", path)
		}
		return roots[0], filepath.Clean(path), nil
	}
	clean := filepath.Clean(path)
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(abs, clean)
		if err == nil && (filepath.IsLocal(rel) || rel == ".") {
			return abs, rel, nil
		}
	}
	return "", "", fmt.Errorf("path %q is outside the workspace and the configured roots", path)
}

// explain turns an os.Root error into a message safe and useful to show.
func (c *confined) explain(op string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %q: no such file or directory", op, c.shown)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s %q: permission denied", op, c.shown)
	case strings.Contains(err.Error(), "escapes from parent"):
		return fmt.Errorf("%s %q: path escapes the allowed roots (through '..' or a symbolic link)", op, c.shown)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %q: %w", op, c.shown, pe.Err)
	}
	return fmt.Errorf("%s %q: %w", op, c.shown, err)
}

// refuseSymlink fails when the final component of the path is a symbolic
// link: write_file and delete_file never act through one.
func (c *confined) refuseSymlink(op string) error {
	fi, err := c.root.Lstat(c.rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return c.explain(op, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s %q: refusing to act through a symbolic link", op, c.shown)
	}
	return nil
}

// refuseHardLink fails for a regular file with more than one name: another
// name may lie outside the roots (a hard link to a file outside, which
// os.Root cannot tell from a file of its own), so write_file and read_file
// never act through one, as through a symbolic link out. delete_file may
// remove such a name: that changes nothing outside.
func (c *confined) refuseHardLink(op string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() || st.Nlink <= 1 {
		return nil
	}
	return fmt.Errorf("%s %q: refusing a file with %d hard links (another name may be outside the allowed roots); copy it to a new file first", op, c.shown, st.Nlink)
}
