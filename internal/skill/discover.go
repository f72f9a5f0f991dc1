package skill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Options says where Discover looks and how it judges what it finds.
type Options struct {
	// Bundled holds <name>/SKILL.md files, normally skills.FS; nil for none.
	Bundled fs.FS
	// GlobalDir is $BEAMCLAW_HOME/skills; "" or missing for none.
	GlobalDir string
	// AgentDir is $BEAMCLAW_HOME/agents/<agent>/skills; "" or missing for none.
	AgentDir string
	// AllowFlagged names flagged skills that may still enter the system
	// prompt (config skills.allow_flagged).
	AllowFlagged []string
	// Env decides eligibility; zero fields mean the real machine.
	Env Env
}

// Catalog is the result of a discovery: the skills by name, sorted, plus
// the files that could not be loaded.
type Catalog struct {
	Skills   []Skill
	Problems []Problem
}

// Problem is a SKILL.md that was skipped, and why.
type Problem struct {
	Path string
	Err  error
}

func (p Problem) Error() string { return p.Path + ": " + p.Err.Error() }

// Get returns the skill called name.
func (c Catalog) Get(name string) (Skill, bool) {
	i := slices.IndexFunc(c.Skills, func(s Skill) bool { return s.Name == name })
	if i < 0 {
		return Skill{}, false
	}
	return c.Skills[i], true
}

// Discover loads the bundled, global and per-agent skills; when two share
// a name the later source wins. Each skill is scanned (Flags) and checked
// (Status). Unreadable or invalid files become Problems; only a failure to
// list a directory that exists is an error.
func Discover(opts Options) (Catalog, error) { return discover(opts, nil) }

func discover(opts Options, cache *Cache) (Catalog, error) {
	env := opts.Env.withDefaults()
	byName := map[string]Skill{}
	var problems []Problem
	add := func(skills []Skill, probs []Problem) {
		for _, s := range skills {
			byName[s.Name] = s
		}
		problems = append(problems, probs...)
	}
	if opts.Bundled != nil {
		skills, probs, err := loadFS(opts.Bundled, SourceBundled, cache, func(dir string) string {
			return "bundled:" + dir + "/" + FileName
		})
		if err != nil {
			return Catalog{}, fmt.Errorf("bundled skills: %w", err)
		}
		add(skills, probs)
	}
	for _, d := range []struct {
		dir string
		src Source
	}{{opts.GlobalDir, SourceGlobal}, {opts.AgentDir, SourceAgent}} {
		skills, probs, err := loadDir(d.dir, d.src, cache)
		if err != nil {
			return Catalog{}, err
		}
		add(skills, probs)
	}
	var c Catalog
	for _, s := range byName {
		s.Flags = cache.scan(s.Content)
		s.Status = Check(s, env)
		s.Allowed = len(s.Flags) > 0 && slices.Contains(opts.AllowFlagged, s.Name)
		c.Skills = append(c.Skills, s)
	}
	slices.SortFunc(c.Skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	c.Problems = problems
	return c, nil
}

// loadDir loads the skills of a directory through an os.Root, so symlinks
// leaving it are refused.
func loadDir(dir string, src Source, cache *Cache) ([]Skill, []Problem, error) {
	if dir == "" {
		return nil, nil, nil
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s skills: open %s: %w", src, dir, err)
	}
	defer root.Close()
	skills, probs, err := loadFS(root.FS(), src, cache, func(name string) string {
		return filepath.Join(dir, name, FileName)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s skills in %s: %w", src, dir, err)
	}
	return skills, probs, nil
}

// loadFS loads every <dir>/SKILL.md in fsys; pathOf names the file.
func loadFS(fsys fs.FS, src Source, cache *Cache, pathOf func(dir string) string) ([]Skill, []Problem, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, nil, fmt.Errorf("list: %w", err)
	}
	var skills []Skill
	var probs []Problem
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || (!e.IsDir() && e.Type()&fs.ModeSymlink == 0) {
			continue
		}
		p := pathOf(e.Name())
		data, err := readSkillFile(fsys, path.Join(e.Name(), FileName))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			probs = append(probs, Problem{Path: p, Err: err})
			continue
		}
		s, err := cache.parse(data)
		if err != nil {
			probs = append(probs, Problem{Path: p, Err: err})
			continue
		}
		s.Source, s.Path = src, p
		skills = append(skills, s)
	}
	return skills, probs, nil
}

func readSkillFile(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if len(data) > MaxSize {
		return nil, errors.New("SKILL.md is larger than 256 KiB")
	}
	return data, nil
}
