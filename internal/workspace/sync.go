package workspace

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// syncPlan is what one sync of a shared directory does (shared.go).
type syncPlan struct {
	take   map[string][]byte // the area's, written here
	drop   []string          // gone from the area, removed here
	push   map[string][]byte // changed here, stored in the area
	unpush []string          // removed here, removed from the area
}

// sync makes the shared files under prefix ("" for all) and the area's
// agree: each goes the way of the side that changed it since they last
// agreed (shared.go). A file it could not store or write is tried again
// at the next sync. The caller holds s.mu.
func (s *Store) sync(t *tree, prefix string) error {
	if err := t.present(); err != nil && prefix == "" {
		return err
	}
	for attempt := 1; ; attempt++ {
		remote, err := t.remote(prefix)
		if err != nil {
			return err
		}
		local, err := s.files(t, strings.TrimSuffix(prefix, "/"))
		if err != nil {
			return err
		}
		err = s.apply(t, prefix, local, remote, nil)
		if errors.Is(err, errChangedElsewhere) && attempt < 20 {
			continue // read what the other node wrote, and decide again
		}
		return err
	}
}

// syncArea is sync after other nodes changed the area: only the files
// whose content there differs from what this node last agreed on are
// looked at on disk, so a change elsewhere costs no walk of the
// directory. The caller holds s.mu.
func (s *Store) syncArea(t *tree) error {
	if err := t.present(); err != nil {
		return err
	}
	remote, err := t.remote("")
	if err != nil {
		return err
	}
	only := map[string]bool{}
	for p, data := range remote {
		if b, ok := t.base[p]; !ok || b != sha256.Sum256(data) {
			only[p] = true
		}
	}
	for p := range t.base {
		if _, ok := remote[p]; !ok {
			only[p] = true
		}
	}
	if len(only) == 0 {
		return nil
	}
	units := map[string]bool{}
	for p := range remote {
		if u, ok := t.unit(p); ok {
			units[u] = true
		}
	}
	for p := range only {
		if u, ok := t.unit(p); ok && !units[u] {
			return s.sync(t, "") // a unit deleted elsewhere: its directory goes only after a look at all of it here
		}
	}
	local, err := s.readPaths(t, only)
	if err != nil {
		return err
	}
	return s.apply(t, "", local, remote, only)
}

// apply decides the paths of only (nil: every path under prefix) over
// the files and the area as read, and carries the decisions out:
// errChangedElsewhere when the area moved meanwhile.
func (s *Store) apply(t *tree, prefix string, local, remote map[string][]byte, only map[string]bool) error {
	pl := t.plan(local, remote, only)
	stored, err := pl.store(t, remote)
	if errors.Is(err, errChangedElsewhere) {
		return err
	}
	final := remote
	skip := map[string]bool{} // not in step: tried again next time
	for p, data := range pl.push {
		if stored[p] {
			final[p] = data
		} else {
			skip[p] = true
		}
	}
	for _, p := range pl.unpush {
		if stored[p] {
			delete(final, p)
		} else {
			skip[p] = true
		}
	}
	wrote := s.writeFiles(t, prefix, pl.take, pl.drop)
	dropped := s.dropUnits(t, pl.drop, final)
	for _, e := range []*fileErrors{wrote, dropped} {
		for p := range e.paths {
			skip[p] = true
		}
	}
	if only == nil {
		t.agree(prefix, final, skip)
		_ = s.restat(t, prefix) // a file not restated is looked at again
	} else {
		for p := range only {
			data, ok := final[p]
			switch {
			case skip[p]:
			case ok:
				t.setBase(p, sha256.Sum256(data))
			default:
				t.dropBase(p)
			}
		}
		s.restatPaths(t, only)
	}
	return errors.Join(err, wrote.err(), dropped.err(), t.saveBase())
}

// present refuses a sync of a directory that is gone from disk while
// this node agreed on files in it: not every file deleted, but a volume
// not mounted, a directory moved aside.
func (t *tree) present() error {
	if _, err := os.Stat(t.dir); errors.Is(err, fs.ErrNotExist) && len(t.base) > 0 {
		return fmt.Errorf("workspace: %s is missing: not taking that for every file deleted", t.dir)
	}
	return nil
}

// fileErrors are the paths a step failed on, and why.
type fileErrors struct {
	paths map[string]bool
	errs  []error
}

func (e *fileErrors) add(p string, err error) {
	if err != nil {
		if e.paths == nil {
			e.paths = map[string]bool{}
		}
		e.paths[p] = true
		e.errs = append(e.errs, err)
	}
}

func (e *fileErrors) err() error { return errors.Join(e.errs...) }

// remote is the area's content under prefix, once caught up with the
// cluster. A key that names no shared file (another node's bug, a
// damaged record) is left out.
func (t *tree) remote(prefix string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := t.area.ViewLatest(func(tx *store.Tx) error {
		c := tx.Bucket([]byte(t.bucket)).Cursor()
		for k, v := c.Seek([]byte(prefix)); k != nil && bytes.HasPrefix(k, []byte(prefix)); k, v = c.Next() {
			if t.valid(string(k)) {
				out[string(k)] = bytes.Clone(v)
			}
		}
		return nil
	})
	return out, err
}

// valid reports whether rel names a shared file of the directory: a
// clean relative path inside a unit that the tree keeps.
func (t *tree) valid(rel string) bool {
	if rel == "" || path.Clean(rel) != rel || path.IsAbs(rel) || strings.HasPrefix(rel, ".") || strings.Contains(rel, "/.") {
		return false // not clean, outside, or hidden (temporary files, an editor's)
	}
	if strings.HasSuffix(rel, ".tmp") {
		return false // a file being written (the sandbox saving a script)
	}
	_, ok := t.unit(rel)
	return ok && t.keep(rel)
}

// plan decides each path where the files and the area differ (of only,
// when it is not nil).
func (t *tree) plan(local, remote map[string][]byte, only map[string]bool) syncPlan {
	known := map[string]bool{} // units this node agreed on with the area
	for p := range t.base {
		if u, ok := t.unit(p); ok {
			known[u] = true
		}
	}
	inArea := map[string]bool{}
	for p := range remote {
		if u, ok := t.unit(p); ok {
			inArea[u] = true
		}
	}
	pl := syncPlan{take: map[string][]byte{}, push: map[string][]byte{}}
	decide := func(p string) {
		l, lok := local[p]
		r, rok := remote[p]
		if lok == rok && bytes.Equal(l, r) {
			return
		}
		u, _ := t.unit(p)
		var theirs bool
		switch {
		case !known[u]: // never agreed: the area's unit wins, a new one is brought in
			theirs = inArea[u] && (rok || !t.merge(p)) // this node's own logs join the area's
		case !lok && rok && !t.ready(): // gone from disk before this start's first sync: an emptied
			theirs = true // directory or a new volume is not every file deleted; the area's copy comes back
		case !t.same(p, l, lok): // changed here: ours, unless the area changed it too
			theirs = !t.same(p, r, rok)
		default:
			theirs = true
		}
		switch {
		case theirs && rok:
			pl.take[p] = r
		case theirs:
			pl.drop = append(pl.drop, p)
		case lok:
			pl.push[p] = l
		default:
			pl.unpush = append(pl.unpush, p)
		}
	}
	if only != nil {
		for p := range only {
			decide(p)
		}
		return pl
	}
	for p := range local {
		decide(p)
	}
	for p := range remote {
		if _, ok := local[p]; !ok {
			decide(p)
		}
	}
	return pl
}

// same reports whether data (ok false: no file) is what this node and
// the area last agreed on at p.
func (t *tree) same(p string, data []byte, ok bool) bool {
	b, known := t.base[p]
	if !ok || !known {
		return ok == known
	}
	return sha256.Sum256(data) == b
}

// batchBytes bounds one area write of a sync (files are at most
// MaxFileSize each, a record of the cluster 8 MiB).
const batchBytes = 4 << 20

// store writes the plan's pushes to the area in batches, each unless the
// area no longer holds what remote read there (errChangedElsewhere). It
// returns the paths stored.
func (pl syncPlan) store(t *tree, remote map[string][]byte) (map[string]bool, error) {
	type write struct {
		p    string
		data []byte
		del  bool
	}
	var writes []write
	for p, data := range pl.push {
		writes = append(writes, write{p: p, data: data})
	}
	for _, p := range pl.unpush {
		writes = append(writes, write{p: p, del: true})
	}
	stored := map[string]bool{}
	for len(writes) > 0 {
		n, size := 0, 0
		for n < len(writes) && (n == 0 || size+len(writes[n].data) <= batchBytes) {
			size += len(writes[n].data)
			n++
		}
		batch := writes[:n]
		writes = writes[n:]
		err := t.area.Update(func(tx *store.Tx) error {
			b := tx.Bucket([]byte(t.bucket))
			for _, w := range batch {
				cur := b.Get([]byte(w.p))
				r, ok := remote[w.p]
				if (cur != nil) != ok || !bytes.Equal(cur, r) {
					return errChangedElsewhere
				}
				var err error
				if w.del {
					err = b.Delete([]byte(w.p))
				} else {
					err = b.Put([]byte(w.p), w.data)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return stored, err
		}
		for _, w := range batch {
			stored[w.p] = true
		}
	}
	return stored, nil
}

// dropUnits removes the directories of the units whose last files the
// area dropped (an agent deleted, a person forgotten on another node);
// it returns the dropped paths of the units it could not remove.
func (s *Store) dropUnits(t *tree, dropped []string, final map[string][]byte) *fileErrors {
	left := map[string]bool{}
	for p := range final {
		if u, ok := t.unit(p); ok {
			left[u] = true
		}
	}
	failed := map[string]error{}
	for _, p := range dropped {
		u, ok := t.unit(p)
		if !ok || left[u] {
			continue
		}
		if _, done := failed[u]; !done {
			dir := filepath.Join(t.dir, filepath.FromSlash(u))
			failed[u] = os.RemoveAll(dir)
			s.cache.forget(dir + string(filepath.Separator))
		}
	}
	e := &fileErrors{}
	for _, p := range dropped {
		if u, ok := t.unit(p); ok && failed[u] != nil {
			e.add(p, failed[u])
		}
	}
	return e
}
