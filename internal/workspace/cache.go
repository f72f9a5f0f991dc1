package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// maxCacheEntries bounds the prompt cache; past it the cache starts over
// (old daily logs would otherwise pile up).
const maxCacheEntries = 4096

// fileCache keeps the contents of the files read into system prompts,
// keyed by absolute path and validated by modification time and size, so
// a warm prompt costs a stat per file and no reads.
type fileCache struct {
	mu      sync.RWMutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	modTime time.Time
	size    int64
	content string
}

func newFileCache() fileCache { return fileCache{entries: make(map[string]cacheEntry)} }

// read returns the content of rel under root (whose directory is dir),
// from the cache when the file is unchanged. Missing files and anything
// but regular files read as "".
func (c *fileCache) read(root *os.Root, dir, rel string) (string, error) {
	fi, err := root.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("stat %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return "", nil
	}
	key := filepath.Join(dir, rel)
	c.mu.RLock()
	e, ok := c.entries[key]
	c.mu.RUnlock()
	if ok && e.size == fi.Size() && e.modTime.Equal(fi.ModTime()) {
		return e.content, nil
	}
	content, err := readPrefix(root, rel)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if len(c.entries) >= maxCacheEntries {
		clear(c.entries)
	}
	c.entries[key] = cacheEntry{modTime: fi.ModTime(), size: fi.Size(), content: content}
	c.mu.Unlock()
	return content, nil
}

// forget drops every entry whose path starts with prefix.
func (c *fileCache) forget(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if strings.HasPrefix(k, prefix) {
			delete(c.entries, k)
		}
	}
}

// readPrefix reads at most MaxFileSize bytes of rel, marking a cut.
func readPrefix(root *os.Root, rel string) (string, error) {
	f, err := root.Open(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("open %s: %w", rel, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", rel, err)
	}
	if len(b) > MaxFileSize {
		return string(b[:MaxFileSize]) + "\n[truncated: file larger than 1 MiB]", nil
	}
	return string(b), nil
}
