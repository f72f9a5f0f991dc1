package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// Loaded is the configuration a command or the daemon runs with: the
// config, where its files are, and which keys the file set.
type Loaded struct {
	*Config
	Paths Paths
	// Found is false when no file exists and the built-in defaults apply.
	Found bool
	// Keys maps the dotted path of every key the file sets to its line.
	Keys map[string]int
}

// Locate resolves the paths under BEAMCLAW_HOME without reading the
// config (a broken config must not stop `beamclaw stop`). file, when not
// empty, is the --config flag and replaces Paths.ConfigFile.
func Locate(getenv func(string) string, file string) (Paths, error) {
	home, err := HomeDir(getenv)
	if err != nil {
		return Paths{}, err
	}
	p := NewPaths(home)
	if file != "" {
		p.ConfigFile = file
	}
	return p, nil
}

// Resolve locates the files and loads the config: an explicit file must
// exist; the default $BEAMCLAW_HOME/config.yaml is optional.
func Resolve(getenv func(string) string, file string) (Loaded, error) {
	paths, err := Locate(getenv, file)
	if err != nil {
		return Loaded{}, err
	}
	cfg, keys, err := loadKeys(paths.ConfigFile)
	if errors.Is(err, fs.ErrNotExist) && file == "" {
		return Loaded{Config: Default(), Paths: paths, Keys: map[string]int{}}, nil
	}
	if err != nil {
		return Loaded{Paths: paths}, err
	}
	return Loaded{Config: cfg, Paths: paths, Found: true, Keys: keys}, nil
}

// Ensure creates the directories of the layout (mode 0700).
func (p Paths) Ensure() error {
	for _, d := range []string{p.Home, p.RunDir, p.LogDir, p.AgentsDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
	}
	return nil
}

// Reservation is a config section whose subsystem is not built yet: its
// keys parse and validate, but nothing reads them.
type Reservation struct {
	Prefix string // a dotted key prefix: "sandbox"
	Why    string
}

// Reserved lists the sections that do nothing yet (none today: every
// subsystem of the spec runs). A test in the daemon proves every other key
// reaches the code; a key here that starts being read must leave this
// list.
var Reserved = []Reservation{}

// ReservedKey returns the reservation covering key, if any.
func ReservedKey(key string) (Reservation, bool) { return reservedIn(Reserved, key) }

func reservedIn(list []Reservation, key string) (Reservation, bool) {
	for _, r := range list {
		if key == r.Prefix || strings.HasPrefix(key, r.Prefix+".") || strings.HasPrefix(key, r.Prefix+"[") {
			return r, true
		}
	}
	return Reservation{}, false
}

// Warnings names every key the file sets that does nothing yet, one line
// each ("config.yaml:12: sandbox.enabled does nothing: the code sandbox is
// not built yet"), in file order.
func (l Loaded) Warnings() []string { return l.warnings(Reserved) }

// warnings is Warnings for a list of reservations.
func (l Loaded) warnings(list []Reservation) []string {
	type hit struct {
		line int
		key  string
		why  string
	}
	var hits []hit
	for key, line := range l.Keys {
		if r, ok := reservedIn(list, key); ok && !hasChildKey(l.Keys, key) {
			hits = append(hits, hit{line, key, r.Why})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].line != hits[j].line {
			return hits[i].line < hits[j].line
		}
		return hits[i].key < hits[j].key
	})
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%d: %s does nothing: %s", l.Paths.ConfigFile, h.line, h.key, h.why))
	}
	return out
}

// hasChildKey reports whether keys holds a key below key (so that a
// section is named by its leaves, not once more by itself).
func hasChildKey(keys map[string]int, key string) bool {
	for k := range keys {
		if strings.HasPrefix(k, key+".") || strings.HasPrefix(k, key+"[") {
			return true
		}
	}
	return false
}
