package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// ParseDate checks a daily log date. "" means today by the Store's clock;
// anything else must be a real date written YYYY-MM-DD.
func (s *Store) ParseDate(date string) (string, error) {
	if date == "" {
		return s.clock.Now().Format(DateLayout), nil
	}
	t, err := time.Parse(DateLayout, date)
	if err != nil || t.Format(DateLayout) != date {
		return "", beamclaw.E("workspace.ParseDate", beamclaw.KindInvalid,
			"dates are written YYYY-MM-DD, got "+quoteShort(date), err)
	}
	return date, nil
}

// Today returns today's date by the Store's clock, as YYYY-MM-DD.
func (s *Store) Today() string { return s.clock.Now().Format(DateLayout) }

// dailyPath is the path of a daily log inside the workspace.
func dailyPath(date string) string { return path.Join(DailyDir, date+".md") }

// AppendDaily appends an entry, stamped with the current time (HH:MM), to
// a daily log of date ("" for today), creating the log: the agent's shared
// log when user is "", else that user's own (PeopleDir). Concurrent appends
// never interleave inside an entry.
func (s *Store) AppendDaily(name, user, date, text string) error {
	date, err := s.ParseDate(date)
	if err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" {
		return beamclaw.E("workspace.AppendDaily", beamclaw.KindInvalid, "nothing to append", nil)
	}
	entry := "## " + s.clock.Now().Format("15:04") + "\n\n" + strings.TrimSpace(text) + "\n"
	if user != "" {
		return s.changeUser(name, user, func(root *os.Root, base string) error {
			return appendText(root, path.Join(base, dailyPath(date)), "\n", entry)
		})
	}
	return s.change(name, func(root *os.Root) error {
		if err := root.MkdirAll(DailyDir, 0o700); err != nil {
			return fmt.Errorf("agent %s: create %s: %w", name, DailyDir, err)
		}
		defer s.cache.forget(filepath.Join(root.Name(), DailyDir))
		return appendText(root, dailyPath(date), "\n", entry)
	})
}

// ReadDaily returns a daily log of date ("" for today): the agent's
// shared one when user is "", else that user's own. A missing log is
// KindNotFound.
func (s *Store) ReadDaily(name, user, date string) (string, error) {
	date, err := s.ParseDate(date)
	if err != nil {
		return "", err
	}
	msg := "agent " + name + " has no daily log for " + date
	if user == "" {
		return s.read(name, dailyPath(date), msg)
	}
	root, err := s.peopleRoot(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return "", beamclaw.E("workspace.ReadDaily", beamclaw.KindNotFound, msg, err)
	}
	if err != nil {
		return "", err
	}
	defer root.Close()
	return readLimited(root, path.Join(UserKey(user), dailyPath(date)), msg)
}

// ListDaily returns the dates of the agent's shared daily logs (user "")
// or of the user's own, oldest first.
func (s *Store) ListDaily(name, user string) ([]string, error) {
	var root *os.Root
	var err error
	dir := DailyDir
	if user == "" {
		root, err = s.Root(name)
	} else if root, err = s.peopleRoot(name, false); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if user != "" {
		dir = path.Join(UserKey(user), DailyDir)
	}
	dates, err := listDailyIn(root, dir)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", name, err)
	}
	return dates, nil
}

// listDailyIn lists the dates of the daily logs in dir (a DailyDir).
func listDailyIn(root *os.Root, dir string) ([]string, error) {
	entries, err := fs.ReadDir(root.FS(), dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list daily logs: %w", err)
	}
	var dates []string
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if t, err := time.Parse(DateLayout, stem); err == nil && t.Format(DateLayout) == stem {
			dates = append(dates, stem)
		}
	}
	return sortedDates(dates), nil
}
