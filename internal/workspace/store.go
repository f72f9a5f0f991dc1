package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// Store manages the agent workspaces under one agents directory
// (normally $BEAMCLAW_HOME/agents). It is safe for concurrent use; writes
// are serialized inside the process.
type Store struct {
	dir    string
	people string // PeopleDir beside dir: the users' own memory
	clock  clock.Clock
	mu     sync.Mutex // serializes every write to the workspaces
	cache  fileCache
	watch  *Watcher
	// prompts holds each workspace's assembled files (the prompt without
	// its extras) while the Watcher sees no change (pmu).
	pmu     sync.Mutex
	prompts map[string]cachedPrompt
	// sharedPeople and sharedAgents, in cluster mode, keep the people's
	// memory and the agents' workspaces the cluster's (Share); nil alone.
	sharedPeople, sharedAgents *tree
}

// cachedPrompt is the file part of a workspace's prompt (with the stable
// part for the last skills section asked for, so a turn copies nothing),
// valid for one generation of the workspace; or a user's own sections,
// valid for one generation of their directory and one day (the daily
// logs they name).
type cachedPrompt struct {
	gen  uint64
	day  string
	text string

	skills     string // the extras.Skills withSkills was built for
	withSkills string // text + that skills section
}

// Agent describes one workspace.
type Agent struct {
	Name string
	Dir  string
	// Files lists the workspace files present, in system-prompt order.
	Files []FileInfo
	// DailyLogs lists the dates (YYYY-MM-DD) of the daily logs, oldest first.
	DailyLogs []string
	// BootstrapPending is true while BOOTSTRAP.md exists: the first-run
	// ritual has not been completed yet.
	BootstrapPending bool
}

// FileInfo describes one workspace file.
type FileInfo struct {
	Name    string
	Size    int64
	ModTime time.Time
}

// New returns a Store for agentsDir. clk gives "now" for the daily logs
// and the system prompt; nil means clock.System. The directory is created
// on the first write.
func New(agentsDir string, clk clock.Clock) *Store {
	dir := filepath.Clean(agentsDir)
	return &Store{dir: dir, people: filepath.Join(filepath.Dir(dir), PeopleDir), clock: clock.Or(clk), cache: newFileCache(),
		watch: newWatcher(), prompts: map[string]cachedPrompt{}}
}

// Watcher returns the service that lets prompts of unchanged workspaces
// skip their file checks; without it running, every prompt stats its files.
func (s *Store) Watcher() *Watcher { return s.watch }

// AgentsDir returns the directory holding every workspace.
func (s *Store) AgentsDir() string { return s.dir }

// Dir returns the workspace directory of the agent name (which need not
// exist yet).
func (s *Store) Dir(name string) (string, error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, name), nil
}

// Exists reports whether the agent's workspace exists.
func (s *Store) Exists(name string) (bool, error) {
	dir, err := s.Dir(name)
	if err != nil {
		return false, err
	}
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("stat agent %s: %w", name, err)
	}
	return fi.IsDir(), nil
}

// Root opens the agent's workspace as an os.Root; the caller closes it.
// A missing agent is KindNotFound.
func (s *Store) Root(name string) (*os.Root, error) {
	const op = "workspace.Root"
	dir, err := s.Dir(name)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, beamclaw.E(op, beamclaw.KindNotFound, "no agent named "+quoteShort(name), err)
	}
	if err != nil {
		return nil, fmt.Errorf("open agent %s: %w", name, err)
	}
	return root, nil
}

// Create makes a new workspace filled with the default templates. An
// existing agent is KindConflict.
func (s *Store) Create(name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changeShared(s.sharedAgents, name, func() error { return s.createLocked(name) })
}

// Ensure creates the agent's workspace unless it already exists. In
// cluster mode, before this node's agents are in the cluster's copy (at
// start), it creates the workspace here: bringing them in takes it, or
// the cluster's copy of the agent replaces it.
func (s *Store) Ensure(name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	create := func() error {
		err := s.createLocked(name)
		if beamclaw.KindOf(err) == beamclaw.KindConflict {
			return nil
		}
		return err
	}
	if t := s.sharedAgents; t != nil && t.ready() {
		return s.changeShared(t, name, create)
	}
	return create()
}

func (s *Store) createLocked(name string) error {
	const op = "workspace.Create"
	dir, err := s.Dir(name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create agents dir: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return beamclaw.E(op, beamclaw.KindConflict, "agent "+quoteShort(name)+" already exists", err)
		}
		return fmt.Errorf("create agent %s: %w", name, err)
	}
	if err := s.writeTemplates(name); err != nil {
		_ = os.RemoveAll(dir)
		return err
	}
	return nil
}

// writeTemplates writes every default file and the daily log directory.
func (s *Store) writeTemplates(name string) error {
	root, err := s.Root(name)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, file := range promptOrder {
		content, err := Template(file)
		if err != nil {
			return err
		}
		if err := writeAtomic(root, file, []byte(content)); err != nil {
			return fmt.Errorf("agent %s: %w", name, err)
		}
	}
	if err := root.MkdirAll(DailyDir, 0o700); err != nil {
		return fmt.Errorf("agent %s: create %s: %w", name, DailyDir, err)
	}
	return nil
}

// List returns every agent, sorted by name. A missing agents directory
// is an empty list. Directories whose names are not valid agent names are
// ignored.
func (s *Store) List() ([]Agent, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	var agents []Agent
	for _, e := range entries {
		if !e.IsDir() || ValidName(e.Name()) != nil {
			continue
		}
		a, err := s.Get(e.Name())
		if beamclaw.KindOf(err) == beamclaw.KindNotFound {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		agents = append(agents, a)
	}
	return agents, nil
}

// Get describes one agent; a missing agent is KindNotFound.
func (s *Store) Get(name string) (Agent, error) {
	root, err := s.Root(name)
	if err != nil {
		return Agent{}, err
	}
	defer root.Close()
	a := Agent{Name: name, Dir: root.Name()}
	for _, file := range append(promptOrder[:], FileHeartbeat) {
		fi, err := root.Stat(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Agent{}, fmt.Errorf("agent %s: stat %s: %w", name, file, err)
		}
		a.Files = append(a.Files, FileInfo{Name: file, Size: fi.Size(), ModTime: fi.ModTime()})
		if file == FileBootstrap {
			a.BootstrapPending = true
		}
	}
	if a.DailyLogs, err = listDailyIn(root, DailyDir); err != nil {
		return Agent{}, fmt.Errorf("agent %s: %w", name, err)
	}
	return a, nil
}

// Delete removes the agent's workspace and everything in it; a missing
// agent is KindNotFound.
func (s *Store) Delete(name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	dir := filepath.Join(s.dir, name)
	defer s.cache.forget(dir + string(filepath.Separator))
	// The files the cluster shares go first; the rest once that is stored
	// (a delete the cluster refused loses nothing).
	err := s.changeShared(s.sharedAgents, name, func() error {
		if err := s.mustExist(name); err != nil {
			return err
		}
		return s.removeShared(name)
	})
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("delete agent %s: %w", name, err)
	}
	return s.forgetPeople(name)
}

// Rehatch restores the default templates of an existing agent (a factory
// reset). The daily logs in memory/ and any other file in the workspace
// are kept, unless all is set: then the whole workspace is wiped first,
// daily logs and per-agent skills included.
func (s *Store) Rehatch(name string, all bool) error {
	if err := ValidName(name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	dir := filepath.Join(s.dir, name)
	defer s.cache.forget(dir + string(filepath.Separator))
	err := s.changeShared(s.sharedAgents, name, func() error {
		if err := s.mustExist(name); err != nil {
			return err
		}
		if all {
			if err := s.removeShared(name); err != nil {
				return err
			}
		}
		return s.writeTemplates(name)
	})
	if err != nil || !all {
		return err
	}
	if err := s.removeOthers(name); err != nil { // once the cluster has the new workspace
		return fmt.Errorf("rehatch agent %s: %w", name, err)
	}
	return s.forgetPeople(name)
}

// removeShared removes the agent's files the cluster shares (agentFile).
func (s *Store) removeShared(name string) error {
	root, err := s.Root(name)
	if err != nil {
		return err
	}
	defer root.Close()
	return fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !agentFile(name+"/"+p) {
			return err
		}
		if err := root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("agent %s: remove %s: %w", name, p, err)
		}
		return nil
	})
}

// removeOthers removes everything in the agent's workspace but the seven
// files of the prompt (a rehatch's skills, daily logs, the file tools'
// files), keeping an empty daily log directory.
func (s *Store) removeOthers(name string) error {
	root, err := s.Root(name)
	if err != nil {
		return err
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() && ValidFile(e.Name()) == nil {
			continue
		}
		if err := root.RemoveAll(e.Name()); err != nil {
			return err
		}
	}
	return root.MkdirAll(DailyDir, 0o700)
}
func (s *Store) mustExist(name string) error {
	ok, err := s.Exists(name)
	if err != nil {
		return err
	}
	if !ok {
		return beamclaw.E("workspace", beamclaw.KindNotFound, "no agent named "+quoteShort(name), nil)
	}
	return nil
}

// sortedDates sorts dates (YYYY-MM-DD sort lexically) oldest first.
func sortedDates(dates []string) []string {
	sort.Strings(dates)
	return dates
}
