package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// OpenRoot opens dir as an os.Root: every access through it stays inside
// dir, and "..", absolute names and symlinks that leave it fail. A
// missing dir is KindNotFound. The caller closes the Root.
func OpenRoot(dir string) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, beamclaw.E("workspace.OpenRoot", beamclaw.KindNotFound, "directory does not exist", err)
	}
	if err != nil {
		return nil, fmt.Errorf("open root %s: %w", dir, err)
	}
	return root, nil
}

// Within turns p into a name relative to base, for use with an os.Root
// opened on base. A relative p resolves against base; an absolute p must
// lie lexically under base. Anything that leaves base ("../x",
// "/etc/passwd") is KindForbidden, an empty p is KindInvalid. Symlinks
// are not resolved here: the os.Root refuses those that leave base.
func Within(base, p string) (string, error) {
	const op = "workspace.Within"
	if strings.TrimSpace(p) == "" || strings.ContainsRune(p, 0) {
		return "", beamclaw.E(op, beamclaw.KindInvalid, "a path is required", nil)
	}
	rel := filepath.Clean(p)
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(filepath.Clean(base), rel)
		if err != nil {
			return "", beamclaw.E(op, beamclaw.KindForbidden, "path is outside the allowed directory", err)
		}
		rel = r
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", beamclaw.E(op, beamclaw.KindForbidden, "path is outside the allowed directory", nil)
	}
	return rel, nil
}

// Resolve opens base as an os.Root and maps p into it with Within. The
// caller closes the Root.
func Resolve(base, p string) (*os.Root, string, error) {
	rel, err := Within(base, p)
	if err != nil {
		return nil, "", err
	}
	root, err := OpenRoot(base)
	if err != nil {
		return nil, "", err
	}
	return root, rel, nil
}
