package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// PeopleDir is the directory, beside the agents directory
// ($BEAMCLAW_HOME/people), that holds each user's own memory
// (memory_scope: user): people/<agent>/<key>/ with that user's USER.md,
// MEMORY.md and daily logs (memory/YYYY-MM-DD.md), and a file ID naming
// the user. It is outside every workspace, so no file tool of any run
// reaches another user's memory, and nothing in it is in the agent's
// shared prompt or shared memory index.
const PeopleDir = "people"

// userIDFile names the user a people/<agent>/<key>/ directory belongs to.
const userIDFile = "ID"

// userFiles are the workspace files a user has a copy of their own: what
// the agent knows about them and its long-term memory of them.
var userFiles = [...]string{FileUser, FileMemory}

// IsUserFile reports whether file is one a user keeps their own copy of
// (USER.md, MEMORY.md) under memory_scope: user.
func IsUserFile(file string) bool { return file == FileUser || file == FileMemory }

// UserKey is the directory name of a user's memory: a readable stem of
// the id and a hash of it, so that any id (they come from clients) is one
// safe, distinct path element.
func UserKey(userID string) string {
	sum := sha256.Sum256([]byte(userID))
	var stem strings.Builder
	for _, r := range userID {
		if stem.Len() >= 24 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			stem.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			stem.WriteRune(r + 'a' - 'A')
		default:
			stem.WriteByte('_')
		}
	}
	return stem.String() + "-" + hex.EncodeToString(sum[:8])
}

// peopleRoot opens people/<name>, the users' memory of the agent name;
// with create it is made first (the agent must exist). Without create a
// missing directory is an error wrapping fs.ErrNotExist.
func (s *Store) peopleRoot(name string, create bool) (*os.Root, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	dir := filepath.Join(s.people, name)
	if create {
		if err := s.mustExist(name); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("agent %s: create the users' memory: %w", name, err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("agent %s: open the users' memory: %w", name, err)
	}
	return root, nil
}

// ReadUserFile returns the user's own copy of USER.md or MEMORY.md ("" and
// no error when they have none yet).
func (s *Store) ReadUserFile(name, user, file string) (string, error) {
	if err := validUserFile(user, file); err != nil {
		return "", err
	}
	root, err := s.peopleRoot(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer root.Close()
	text, err := readLimited(root, path.Join(UserKey(user), file), "")
	if beamclaw.KindOf(err) == beamclaw.KindNotFound {
		return "", nil
	}
	return text, err
}

// WriteUserFile replaces the user's own USER.md or MEMORY.md.
func (s *Store) WriteUserFile(name, user, file, content string) error {
	if err := validUserFile(user, file); err != nil {
		return err
	}
	if err := checkSize(len(content)); err != nil {
		return err
	}
	return s.changeUser(name, user, func(root *os.Root, base string) error {
		return writeAtomic(root, path.Join(base, file), []byte(content))
	})
}

// AppendUserFile appends text to the user's own USER.md or MEMORY.md.
func (s *Store) AppendUserFile(name, user, file, text string) error {
	if err := validUserFile(user, file); err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" {
		return beamclaw.E("workspace.AppendUserFile", beamclaw.KindInvalid, "nothing to append", nil)
	}
	return s.changeUser(name, user, func(root *os.Root, base string) error {
		return appendText(root, path.Join(base, file), "", text)
	})
}

func validUserFile(user, file string) error {
	if user == "" {
		return beamclaw.E("workspace", beamclaw.KindInvalid, "no user given", nil)
	}
	if !IsUserFile(file) {
		return beamclaw.E("workspace", beamclaw.KindInvalid, "a user keeps only USER.md and MEMORY.md of their own, not "+quoteShort(file), nil)
	}
	return nil
}

// changeUser runs fn, with the Store's lock held, on the root of the
// agent's users' memory and the name of user's directory in it, creating
// that directory (and its ID file) first. The file cache forgets the
// user's files afterwards.
func (s *Store) changeUser(name, user string, fn func(root *os.Root, base string) error) error {
	if user == "" {
		return beamclaw.E("workspace", beamclaw.KindInvalid, "no user given", nil)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ValidName(name); err != nil {
		return err
	}
	// the cluster's memory: read, changed and written back as one
	return s.changeShared(s.sharedPeople, name+"/"+UserKey(user), func() error { return s.changeUserLocked(name, user, fn) })
}

// changeUserLocked is changeUser on this node's files. The caller holds
// s.mu.
func (s *Store) changeUserLocked(name, user string, fn func(root *os.Root, base string) error) error {
	root, err := s.peopleRoot(name, true)
	if err != nil {
		return err
	}
	defer root.Close()
	base := UserKey(user)
	defer s.cache.forget(filepath.Join(root.Name(), base) + string(filepath.Separator))
	if err := root.MkdirAll(path.Join(base, DailyDir), 0o700); err != nil {
		return fmt.Errorf("agent %s: create the memory of user %s: %w", name, user, err)
	}
	idFile := path.Join(base, userIDFile)
	if _, err := root.Stat(idFile); errors.Is(err, fs.ErrNotExist) {
		if err := writeAtomic(root, idFile, []byte(user+"\n")); err != nil {
			return fmt.Errorf("agent %s: %w", name, err)
		}
	}
	if err := fn(root, base); err != nil {
		return fmt.Errorf("agent %s, user %s: %w", name, user, err)
	}
	return nil
}

// EnsureUser creates the directory of the user's own memory of the agent,
// naming them, unless it exists.
func (s *Store) EnsureUser(name, user string) error {
	return s.changeUser(name, user, func(*os.Root, string) error { return nil })
}

// Users returns the ids of the users with memory of their own at the
// agent.
func (s *Store) Users(name string) ([]string, error) {
	root, err := s.peopleRoot(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, fmt.Errorf("agent %s: list users: %w", name, err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		id, err := readLimited(root, path.Join(e.Name(), userIDFile), "")
		if id = strings.TrimSpace(id); err != nil || id == "" || UserKey(id) != e.Name() {
			continue
		}
		out = append(out, id)
	}
	return out, nil
}

// UserMemory is everything a user's own memory holds at one agent.
type UserMemory struct {
	Files map[string]string // USER.md, MEMORY.md: content (only those present)
	Daily map[string]string // date: daily log
}

// ExportUser returns the user's own memory at the agent (empty when they
// have none).
func (s *Store) ExportUser(name, user string) (UserMemory, error) {
	out := UserMemory{Files: map[string]string{}, Daily: map[string]string{}}
	if user == "" {
		return out, beamclaw.E("workspace.ExportUser", beamclaw.KindInvalid, "no user given", nil)
	}
	root, err := s.peopleRoot(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	defer root.Close()
	base := UserKey(user)
	for _, f := range userFiles {
		text, err := readLimited(root, path.Join(base, f), "")
		switch {
		case beamclaw.KindOf(err) == beamclaw.KindNotFound:
		case err != nil:
			return out, fmt.Errorf("agent %s, user %s: %w", name, user, err)
		default:
			out.Files[f] = text
		}
	}
	dates, err := listDailyIn(root, path.Join(base, DailyDir))
	if err != nil {
		return out, fmt.Errorf("agent %s, user %s: %w", name, user, err)
	}
	for _, d := range dates {
		text, err := readLimited(root, path.Join(base, dailyPath(d)), "")
		if err != nil {
			return out, fmt.Errorf("agent %s, user %s: %w", name, user, err)
		}
		out.Daily[d] = text
	}
	return out, nil
}

// ForgetUser removes the user's own memory of the agent; it reports
// whether there was any. It removes through the users' root, so a
// symlink cannot lead it elsewhere.
func (s *Store) ForgetUser(name, user string) (bool, error) {
	if user == "" {
		return false, beamclaw.E("workspace.ForgetUser", beamclaw.KindInvalid, "no user given", nil)
	}
	if err := ValidName(name); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := UserKey(user)
	had := false
	// In cluster mode gone on every node, even when this one has none yet.
	err := s.changeShared(s.sharedPeople, name+"/"+key, func() error {
		root, err := s.peopleRoot(name, false)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer root.Close()
		if _, err := root.Lstat(key); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		had = true
		return root.RemoveAll(key)
	})
	s.cache.forget(filepath.Join(s.people, name, key) + string(filepath.Separator))
	if err != nil {
		return false, fmt.Errorf("agent %s: forget user %s: %w", name, user, err)
	}
	return had, nil
}

// UserDir is the directory of the user's own memory of the agent (which
// need not exist yet).
func (s *Store) UserDir(name, user string) (string, error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	if user == "" {
		return "", beamclaw.E("workspace.UserDir", beamclaw.KindInvalid, "no user given", nil)
	}
	return filepath.Join(s.people, name, UserKey(user)), nil
}

// forgetPeople removes every user's own memory of the agent (it is
// deleted or wiped). The caller holds s.mu.
func (s *Store) forgetPeople(name string) error {
	dir := filepath.Join(s.people, name)
	if s.sharedPeople != nil { // gone on every node
		if err := s.changeShared(s.sharedPeople, name, func() error { return os.RemoveAll(dir) }); err != nil {
			return fmt.Errorf("agent %s: remove the users' memory: %w", name, err)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("agent %s: remove the users' memory: %w", name, err)
	}
	s.cache.forget(dir + string(filepath.Separator))
	return nil
}
