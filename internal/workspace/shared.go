package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// In cluster mode each person's memory (PeopleDir, ADR-047), the agents'
// workspaces (their seven files, HEARTBEAT.md, shared daily logs and own
// skills, ADR-048) and the skills every agent has are the cluster's: an area per directory maps a file's
// path under it to its content, and each node's files are a copy of it.
//
// A change through the Store reads the files it changes (a person's
// directory, an agent's workspace) from the area first, changes them, and
// writes back only if no other node changed them meanwhile (else it runs
// again on the newer files), so two nodes appending to one daily log lose
// nothing. Files changed on disk by hand or by an offline `beamclaw agent`
// command are found by a sync every syncEvery and whenever the area
// changes: each file is compared with the area and with the content both
// last agreed on (base), and the side that changed since wins; the
// area's copy when both did. A unit (a person's memory, an agent) this
// node has never agreed on with the area is the area's when the area has
// it, and is brought in when it does not.

// errChangedElsewhere: another node changed the files since they were
// read; the change runs again.
var errChangedElsewhere = errors.New("workspace: the files changed on another node")

// readyWait bounds how long a change waits for this node's first sync
// with the cluster's copy (a quorum, at start); syncEvery is how often
// the files are compared with the area when nothing else asks.
const (
	readyWait = 15 * time.Second
	syncEvery = 5 * time.Second
	scanShare = 50
	// maxScanEvery bounds the wait between looks all the same: a hand's
	// edit reaches the other nodes within it.
	maxScanEvery = time.Minute
)

// tree is one directory the cluster shares. base and the files are
// guarded by the Store's mu.
type tree struct {
	dir     string                // on disk
	bucket  string                // the area's name and bucket
	depth   int                   // leading path segments that name a unit (a person, an agent)
	keep    func(rel string) bool // which files under dir are shared
	merge   func(rel string) bool // which of them a node brings into a unit the area has at its first sync
	area    *store.Area
	wake    chan struct{}
	in      chan struct{}       // closed after the first sync
	base    map[string][32]byte // the content this node and the area last agreed on, per path (agreed.go)
	kept    *store.Area         // base, kept in this node's database
	unsaved map[string]bool     // paths of base changed since kept
	stats   map[string]fileStat // the shared files on disk as the last sync or change left them
	// lastScan is what the last look for files changed on disk took: the
	// next look waits scanShare times as long (at least syncEvery), so a
	// large directory costs a node at most 2 % of a core.
	lastScan time.Duration
}

// Share makes the people's memory and the agents' workspaces the
// cluster's (cluster mode) until ctx ends. Call it before the Store is
// used.
func (s *Store) Share(ctx context.Context, db *store.DB, skillsDir string, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	people, err := newTree(db, "people_files", s.people, 2, personFile, func(string) bool { return true })
	if err != nil {
		return err
	}
	agents, err := newTree(db, "agent_files", s.dir, 1, agentFile, func(rel string) bool {
		_, file, _ := strings.Cut(rel, "/")
		return isDailyLog(file) // a node's own logs of an agent join the cluster's
	})
	if err != nil {
		return err
	}
	s.sharedPeople, s.sharedAgents = people, agents
	go s.follow(ctx, people, log)
	go s.follow(ctx, agents, log)
	if skillsDir != "" { // the skills every agent has: written by hand, or scripts the sandbox saved
		skills, err := newTree(db, "skill_files", filepath.Clean(skillsDir), 1, func(string) bool { return true }, func(string) bool { return true })
		if err != nil {
			return err
		}
		go s.follow(ctx, skills, log)
	}
	return nil
}

func newTree(db *store.DB, name, dir string, depth int, keep, merge func(string) bool) (*tree, error) {
	a, err := db.Area(name, name)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	t := &tree{dir: dir, bucket: name, depth: depth, keep: keep, merge: merge, area: a,
		wake: make(chan struct{}, 1), in: make(chan struct{}),
		base: map[string][32]byte{}, stats: map[string]fileStat{}, unsaved: map[string]bool{}}
	if t.kept, err = agreedArea(db, name); err != nil {
		return nil, err
	}
	if err := t.loadBase(); err != nil {
		return nil, fmt.Errorf("workspace: what %s agreed on: %w", name, err)
	}
	a.OnChange(func() {
		select {
		case t.wake <- struct{}{}:
		default:
		}
	})
	return t, nil
}

// agentFile reports whether rel (a path under the agents directory) is
// one of the files of a workspace the cluster shares.
func agentFile(rel string) bool {
	name, file, ok := strings.Cut(rel, "/")
	if !ok || ValidName(name) != nil {
		return false
	}
	if rest, ok := strings.CutPrefix(file, "skills/"); ok { // its own skills
		skill, _, ok := strings.Cut(rest, "/")
		return ok && skill != ""
	}
	return ValidFile(file) == nil || file == FileHeartbeat || isDailyLog(file)
}

// personFile reports whether rel (a path under PeopleDir) is one of the
// files of a person's memory: their ID, USER.md, MEMORY.md, daily logs.
func personFile(rel string) bool {
	parts := strings.SplitN(rel, "/", 3)
	if len(parts) != 3 || ValidName(parts[0]) != nil || parts[1] == "" || strings.HasPrefix(parts[1], ".") {
		return false
	}
	return parts[2] == userIDFile || IsUserFile(parts[2]) || isDailyLog(parts[2])
}

// isDailyLog reports whether file (a path inside a unit) is a daily log
// (memory/<date>.md).
func isDailyLog(file string) bool {
	dir, name := path.Split(file)
	date, ok := strings.CutSuffix(name, ".md")
	if !ok || dir != DailyDir+"/" {
		return false
	}
	_, err := time.Parse(DateLayout, date)
	return err == nil
}

// ready reports whether this node's first sync is done.
func (t *tree) ready() bool {
	select {
	case <-t.in:
		return true
	default:
		return false
	}
}

// unit is the unit of rel (its first depth segments); ok false for a
// path not inside one.
func (t *tree) unit(rel string) (string, bool) {
	parts := strings.SplitN(rel, "/", t.depth+1)
	if len(parts) <= t.depth {
		return "", false
	}
	return strings.Join(parts[:t.depth], "/"), true
}

// follow syncs the directory with the area: once before anything is
// changed through the Store, then whenever the area changes and every
// syncEvery.
func (s *Store) follow(ctx context.Context, t *tree, log *slog.Logger) {
	tick := time.NewTimer(syncEvery)
	defer tick.Stop()
	full := true   // the first sync, or the last one failed
	woken := false // the area changed
	for {
		var err error
		if !t.ready() { // wait for the cluster without holding the Store (the daemon's start ensures an agent)
			_, err = t.remote("")
		}
		switch {
		case err != nil:
		case woken && !full: // only what the others changed: no walk of the disk
			s.mu.Lock()
			err = s.syncArea(t)
			s.mu.Unlock()
		case full || s.touched(t):
			s.mu.Lock()
			err = s.sync(t, "")
			s.mu.Unlock()
		}
		if err == nil && !t.ready() {
			close(t.in)
		}
		if err != nil && ctx.Err() == nil {
			log.Warn("workspace files not in step with the cluster's", "area", t.bucket, "err", err)
		}
		full, woken = err != nil, false
		select {
		case <-ctx.Done():
			return
		case <-t.wake:
			woken = true
		case <-tick.C:
			tick.Reset(min(max(syncEvery, scanShare*t.lastScan), maxScanEvery))
		}
	}
}

// touched reports whether a shared file was written, made or removed on
// disk since the last sync, by its size and modification time.
func (s *Store) touched(t *tree) bool {
	start := time.Now()
	now, err := s.scan(t, "")
	t.lastScan = time.Since(start) // follow's goroutine alone
	if err != nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !maps.Equal(now, t.stats)
}

// changeShared runs change (a change of the files under dir, a path
// under t's directory) on those files as the cluster holds them, and
// stores what it changed in the area, again from the newer files if
// another node changed them meanwhile. A change that is not stored is
// undone here. Alone (t nil) it runs change as it is. The caller holds
// s.mu.
func (s *Store) changeShared(t *tree, dir string, change func() error) error {
	if t == nil {
		return change()
	}
	if !t.ready() {
		s.mu.Unlock() // the first sync takes it
		select {
		case <-t.in:
		case <-time.After(readyWait):
		}
		s.mu.Lock()
		if !t.ready() {
			return fmt.Errorf("workspace: this node's files are not in step with the cluster's yet (no quorum?)")
		}
	}
	prefix := dir + "/"
	for range 20 {
		if err := s.sync(t, prefix); err != nil {
			return err
		}
		before, err := s.files(t, dir)
		if err != nil {
			return err
		}
		err = change()
		var after map[string][]byte
		if err == nil {
			after, err = s.files(t, dir)
		}
		if err == nil {
			err = t.area.Update(func(tx *store.Tx) error { return t.pushDir(tx, prefix, before, after) })
		}
		if err == nil {
			t.agree(prefix, after, nil)
			_ = s.restat(t, prefix) // a file not restated is looked at again
			_ = t.saveBase()        // stored all the same: a base not kept now is kept with the next save
			return nil
		}
		if undo := s.restore(t, prefix, before); undo.err() != nil {
			return errors.Join(err, undo.err())
		}
		if !errors.Is(err, errChangedElsewhere) {
			return err
		}
	}
	return errChangedElsewhere
}

// agree records files (every shared file under prefix) as what this node
// and the area hold, but for the paths of skip.
func (t *tree) agree(prefix string, files map[string][]byte, skip map[string]bool) {
	for p := range t.base {
		if _, ok := files[p]; !ok && strings.HasPrefix(p, prefix) && !skip[p] {
			t.dropBase(p)
		}
	}
	for p, data := range files {
		if !skip[p] {
			t.setBase(p, sha256.Sum256(data))
		}
	}
}

// restore makes the shared files under prefix exactly before.
func (s *Store) restore(t *tree, prefix string, before map[string][]byte) *fileErrors {
	have, err := s.files(t, strings.TrimSuffix(prefix, "/"))
	if err != nil {
		e := &fileErrors{}
		e.add(prefix, err)
		return e
	}
	var gone []string
	for p := range have {
		if _, ok := before[p]; !ok {
			gone = append(gone, p)
		}
	}
	return s.writeFiles(t, prefix, before, gone)
}

// pushDir stores after (the files under prefix) over before, unless the
// area no longer holds before there.
func (t *tree) pushDir(tx *store.Tx, prefix string, before, after map[string][]byte) error {
	b := tx.Bucket([]byte(t.bucket))
	c := b.Cursor()
	n := 0
	for k, v := c.Seek([]byte(prefix)); k != nil && bytes.HasPrefix(k, []byte(prefix)); k, v = c.Next() {
		if !t.valid(string(k)) {
			continue // names no file (remote leaves it out too)
		}
		if w, ok := before[string(k)]; !ok || !bytes.Equal(w, v) {
			return errChangedElsewhere
		}
		n++
	}
	if n != len(before) {
		return errChangedElsewhere
	}
	for p, data := range after {
		if w, ok := before[p]; ok && bytes.Equal(w, data) {
			continue
		}
		if err := b.Put([]byte(p), data); err != nil {
			return err
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			if err := b.Delete([]byte(p)); err != nil {
				return err
			}
		}
	}
	return nil
}
