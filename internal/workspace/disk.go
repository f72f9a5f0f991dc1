package workspace

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The disk side of the shared directories (shared.go): reading, writing
// and statting the files the cluster shares.

// writeFiles writes want and removes gone (paths under the directory,
// within prefix), each only when it differs, and makes the prompt cache
// forget what changed. It returns the paths it failed on.
func (s *Store) writeFiles(t *tree, prefix string, want map[string][]byte, gone []string) *fileErrors {
	e := &fileErrors{}
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		e.add(prefix, err)
		return e
	}
	root, err := os.OpenRoot(t.dir)
	if err != nil {
		e.add(prefix, err)
		return e
	}
	defer root.Close()
	forget := func(p string) {
		s.cache.forget(filepath.Join(t.dir, filepath.FromSlash(p)))
		s.cache.forget(filepath.Join(t.dir, filepath.FromSlash(path.Dir(p))) + string(filepath.Separator))
	}
	for p, data := range want {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		if cur, err := root.ReadFile(p); err == nil && bytes.Equal(cur, data) {
			continue
		}
		err := root.MkdirAll(path.Dir(p), 0o700)
		if err == nil {
			err = writeAtomic(root, p, data)
		}
		e.add(p, err)
		forget(p)
	}
	for _, p := range gone {
		if err := root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			e.add(p, err)
		}
		forget(p)
	}
	return e
}

// fileStat is what tells a file changed on disk.
type fileStat struct {
	size int64
	mod  int64 // modification time, Unix nanoseconds
}

// scan stats the shared files under the directory's prefix.
func (s *Store) scan(t *tree, prefix string) (map[string]fileStat, error) {
	out := map[string]fileStat{}
	err := t.walk(prefix, func(rel, p string, d fs.DirEntry) error {
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		out[rel] = fileStat{size: fi.Size(), mod: fi.ModTime().UnixNano()}
		return nil
	})
	return out, err
}

// restat records the shared files under prefix as they are now (touched
// compares with them). The caller holds s.mu.
func (s *Store) restat(t *tree, prefix string) error {
	now, err := s.scan(t, strings.TrimSuffix(prefix, "/"))
	if err != nil {
		return err
	}
	maps.DeleteFunc(t.stats, func(p string, _ fileStat) bool { return strings.HasPrefix(p, prefix) })
	maps.Copy(t.stats, now)
	return nil
}

// walk calls fn for each shared file under the directory's prefix, with
// its path under the directory (slash-separated) and on disk.
func (t *tree) walk(prefix string, fn func(rel, p string, d fs.DirEntry) error) error {
	base := filepath.Join(t.dir, filepath.FromSlash(prefix))
	return filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(t.dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !t.valid(rel) {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > MaxFileSize {
			return nil // gone meanwhile, or too large to share
		}
		return fn(rel, p, d)
	})
}

// files reads the shared files under the directory's prefix (paths under
// the directory, slash-separated).
func (s *Store) files(t *tree, prefix string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := t.walk(prefix, func(rel, p string, _ fs.DirEntry) error {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		out[rel] = data
		return nil
	})
	return out, err
}

// readPaths reads the shared files of paths that exist (paths under the
// directory, slash-separated).
func (s *Store) readPaths(t *tree, paths map[string]bool) (map[string][]byte, error) {
	out := map[string][]byte{}
	root, err := os.OpenRoot(t.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	for p := range paths {
		fi, err := root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() || fi.Size() > MaxFileSize {
			continue
		}
		data, err := root.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if err == nil {
			out[p] = data
		}
	}
	return out, nil
}

// restatPaths records the shared files of paths as they are now.
func (s *Store) restatPaths(t *tree, paths map[string]bool) {
	for p := range paths {
		fi, err := os.Lstat(filepath.Join(t.dir, filepath.FromSlash(p)))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxFileSize {
			delete(t.stats, p)
			continue
		}
		t.stats[p] = fileStat{size: fi.Size(), mod: fi.ModTime().UnixNano()}
	}
}
