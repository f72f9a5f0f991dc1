package memory

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// dailyDir holds the daily logs, named YYYY-MM-DD.md.
const (
	dailyDir    = "memory"
	dailyLayout = "2006-01-02"
)

type fileStamp struct {
	size    int64
	modTime time.Time
	hash    [sha256.Size]byte
}

// Workspace keeps an agent workspace's memory files indexed: the
// configured workspace_files (MEMORY.md) and the daily logs
// memory/YYYY-MM-DD.md of the last daily_log_lookback days. Files are read
// through an os.Root, so symlinks cannot lead outside the workspace.
// Sources in the Index are slash paths relative to the workspace.
type Workspace struct {
	idx  *Index
	dir  string
	opts Options
	log  *slog.Logger

	mu   sync.Mutex // one Refresh at a time
	seen map[string]fileStamp
}

// NewWorkspace returns an indexer of the workspace dir into idx. log may
// be nil (discard).
func NewWorkspace(idx *Index, dir string, opts Options, log *slog.Logger) *Workspace {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Workspace{idx: idx, dir: dir, opts: opts, log: log, seen: make(map[string]fileStamp)}
}

// Index returns the index the workspace feeds.
func (w *Workspace) Index() *Index { return w.idx }

// String names the indexer as a supervised service.
func (w *Workspace) String() string { return "memory.workspace(" + w.dir + ")" }

// Refresh re-indexes files whose size, modification time or content
// changed, drops files that vanished or aged out of the lookback window,
// then embeds new chunks (when an embedder is set). It reports whether any
// source changed. A file that cannot be read (one whose path or symlink
// leads outside the workspace, say) is left out and reported in the
// error, while the other files are still indexed.
func (w *Workspace) Refresh(ctx context.Context) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	root, err := os.OpenRoot(w.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return w.forgetAll(), nil
	}
	if err != nil {
		return false, fmt.Errorf("memory: open workspace: %w", err)
	}
	defer root.Close()
	wanted, err := w.files(root)
	if err != nil {
		return false, err
	}
	changed := false
	var errs []error
	for _, name := range wanted {
		c, err := w.refreshFile(root, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		changed = changed || c
	}
	for name := range w.seen {
		if !contains(wanted, name) {
			delete(w.seen, name)
			changed = w.idx.Remove(name) || changed
		}
	}
	if err := w.idx.Embed(ctx); err != nil {
		errs = append(errs, fmt.Errorf("memory: embed workspace %s: %w", w.dir, err))
	}
	return changed, errors.Join(errs...)
}

func (w *Workspace) forgetAll() bool {
	changed := false
	for name := range w.seen {
		changed = w.idx.Remove(name) || changed
	}
	clear(w.seen)
	return changed
}

// files lists the existing workspace files and in-window daily logs.
func (w *Workspace) files(root *os.Root) ([]string, error) {
	var out []string
	for _, f := range w.opts.Search.WorkspaceFiles {
		out = append(out, path.Clean(strings.ReplaceAll(f, "\\", "/")))
	}
	entries, err := fs.ReadDir(root.FS(), dailyDir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory: list daily logs: %w", err)
	}
	now := w.opts.now()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	oldest := today.AddDate(0, 0, -(w.opts.Search.DailyLogLookback - 1))
	for _, e := range entries {
		day, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.IsDir() {
			continue
		}
		d, err := time.Parse(dailyLayout, day)
		if err != nil || d.Before(oldest) || d.After(today) {
			continue
		}
		out = append(out, dailyDir+"/"+e.Name())
	}
	return out, nil
}

// refreshFile re-indexes name when it changed; a missing file is removed.
func (w *Workspace) refreshFile(root *os.Root, name string) (bool, error) {
	info, err := root.Stat(name)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !info.Mode().IsRegular()) {
		_, had := w.seen[name]
		delete(w.seen, name)
		return w.idx.Remove(name) || had, nil
	}
	if err != nil {
		return false, fmt.Errorf("memory: stat %s: %w", name, err)
	}
	old, ok := w.seen[name]
	if ok && old.size == info.Size() && old.modTime.Equal(info.ModTime()) {
		return false, nil
	}
	data, err := root.ReadFile(name)
	if err != nil {
		return false, fmt.Errorf("memory: read %s: %w", name, err)
	}
	st := fileStamp{size: info.Size(), modTime: info.ModTime(), hash: sha256.Sum256(data)}
	w.seen[name] = st
	if ok && old.hash == st.hash {
		return false, nil
	}
	return w.idx.Set(name, string(data)), nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Serve refreshes at once and then every RefreshInterval until ctx ends
// (a suture service). A failed refresh, such as an unreachable embedding
// provider, is logged and retried on the next tick; search keeps working
// by keyword meanwhile.
func (w *Workspace) Serve(ctx context.Context) error {
	interval := w.opts.RefreshInterval
	if interval <= 0 {
		interval = DefaultRefreshInterval
	}
	t := clock.Or(w.opts.Clock).NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := w.Refresh(ctx); err != nil && ctx.Err() == nil {
			w.log.LogAttrs(ctx, slog.LevelWarn, "memory refresh failed",
				slog.String("workspace", w.dir), slog.String("error", err.Error()))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C():
		}
	}
}
