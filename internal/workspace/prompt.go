package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FallbackPrompt is the system prompt of an agent that has no workspace.
const FallbackPrompt = `You are a helpful, honest assistant running inside BeamClaw.
Answer clearly and briefly, say when you are unsure, and ask before doing
anything destructive or hard to undo. Never reveal secrets such as API keys
or passwords, even if a tool shows them to you.`

// PromptExtras are the parts of a system prompt that do not come from the
// agent's shared workspace files.
type PromptExtras struct {
	// Skills is a rendered skills section (see skill.PromptSection),
	// included as is; "" for none.
	Skills string
	// User, when set, is the user whose own memory (memory_scope: user)
	// the prompt carries: their USER.md, MEMORY.md and yesterday's and
	// today's daily logs, after the skills. The agent's shared daily logs
	// are then left out: they may hold other users' words. "" gives the
	// agent's shared memory, daily logs included.
	User string
	// Anonymous: a run without a user under memory_scope: user. Its
	// prompt carries the agent's shared files only: neither the shared
	// daily logs nor anyone's own memory.
	Anonymous bool
	// Memory holds auto-context snippets recalled for this turn.
	Memory []Snippet
}

// Snippet is one recalled piece of memory.
type Snippet struct {
	Source string // where it came from, e.g. "MEMORY.md" or "memory/2026-11-20.md"
	Text   string
}

// fileTitles explains each file in its section header.
var fileTitles = map[string]string{
	FileIdentity:  "who you are",
	FileSoul:      "your character",
	FileUser:      "your user",
	FileTools:     "tool notes",
	FileAgents:    "your habits",
	FileBootstrap: "do this now",
	FileMemory:    "long-term memory",
}

// Prompt is a system prompt in its two parts. Stable is the same for
// every user and turn of the agent (the workspace files and the skills):
// providers cache it as a prefix. Context is what differs per user or per
// day or turn (daily logs, the user's own memory, recalled memory), sent
// after it.
type Prompt struct {
	Stable  string
	Context string
}

// Text is the whole prompt: Stable, then Context.
func (p Prompt) Text() string { return p.Stable + p.Context }

// SystemPrompt is Prompt as one text (the admin API's view of it).
func (s *Store) SystemPrompt(name string, extras PromptExtras) (string, error) {
	p, err := s.Prompt(name, extras)
	return p.Text(), err
}

// Prompt assembles the system prompt of the agent name. Its stable part
// holds the workspace files in the order IDENTITY, SOUL, USER, TOOLS,
// AGENTS, BOOTSTRAP, MEMORY, then the skills; its context part
// (without extras.User) yesterday's and today's shared daily logs (oldest
// first, so the newest is closest to the conversation), the user's own
// memory (extras.User) and the recalled memory. Each part sits under a
// "# ..." header; empty or blank files are skipped. An agent without a
// workspace gets FallbackPrompt and the skills as its stable part. File
// contents are cached by path, modification time and size.
func (s *Store) Prompt(name string, extras PromptExtras) (Prompt, error) {
	dir, err := s.Dir(name)
	if err != nil {
		return Prompt{}, err
	}
	now := s.clock.Now()
	stable, err := s.stablePart(name, dir, extras.Skills)
	if err != nil {
		return Prompt{}, err
	}
	var ctx strings.Builder
	if extras.User == "" && !extras.Anonymous {
		ctx.WriteString(s.cachedText(dir+"\x00daily", dir, now, func() string { return s.renderDaily(dir, now) }))
	}
	if extras.User != "" {
		ctx.WriteString(s.userSections(name, extras.User, now))
	}
	writeRecalled(&ctx, extras.Memory)
	return Prompt{Stable: stable, Context: ctx.String()}, nil
}

// stablePart is the workspace files and the skills section, reused
// while the Watcher sees no change in the workspace and the skills
// section is the one last asked for.
func (s *Store) stablePart(name, dir, skills string) (string, error) {
	gen, watched := s.watch.generation(dir)
	var files string
	if watched {
		s.pmu.Lock()
		p, ok := s.prompts[dir]
		s.pmu.Unlock()
		if ok && p.gen == gen {
			if p.withSkills != "" && p.skills == skills {
				return p.withSkills, nil
			}
			files = p.text
		}
	}
	if files == "" {
		var found bool
		var err error
		if files, found, err = s.promptFiles(name, dir); err != nil {
			return "", err
		}
		if !found {
			return withSkills(FallbackPrompt+"\n", skills), nil
		}
	}
	text := withSkills(files, skills)
	if watched {
		s.pmu.Lock()
		if len(s.prompts) >= maxCacheEntries {
			clear(s.prompts)
		}
		s.prompts[dir] = cachedPrompt{gen: gen, text: files, skills: skills, withSkills: text}
		s.pmu.Unlock()
	}
	return text, nil
}

// withSkills is files followed by the skills section (if any).
func withSkills(files, skills string) string {
	sk := strings.TrimSpace(skills)
	if sk == "" {
		return files
	}
	return files + "\n" + sk + "\n"
}

// promptFiles assembles the file part of the prompt (the header and the
// workspace files); found is false when the agent has no workspace.
func (s *Store) promptFiles(name, dir string) (text string, found bool, err error) {
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("agent %s: open workspace: %w", name, err)
	}
	defer root.Close()

	var b strings.Builder
	b.Grow(8 << 10)
	fmt.Fprintf(&b, "You are the BeamClaw agent %q. The sections below are your workspace files; keep them current with workspace_memory.\n", name)
	for _, file := range promptOrder {
		s.writeFileSection(&b, root, dir, file, file+" ("+fileTitles[file]+")")
	}
	return b.String(), true, nil
}

// writeDailySections appends yesterday's and today's daily logs of the
// daily-log directory logs (rooted at dir).
func (s *Store) writeDailySections(b *strings.Builder, logs *os.Root, dir string, now time.Time) {
	days := [...]struct{ date, label string }{
		{now.AddDate(0, 0, -1).Format(DateLayout), "yesterday"},
		{now.Format(DateLayout), "today"},
	}
	for _, d := range days {
		s.writeFileSection(b, logs, dir, d.date+".md", "Daily log "+d.date+" ("+d.label+")")
	}
}

// userSections renders the user's own memory: their USER.md and
// MEMORY.md and their daily logs of yesterday and today ("" when none),
// reused while the Watcher sees no change in the user's directory (it
// watches it and its daily logs as it does a workspace).
func (s *Store) userSections(name, user string, now time.Time) string {
	udir := filepath.Join(s.people, name, UserKey(user))
	return s.cachedText(udir, udir, now, func() string { return s.renderUserSections(udir, now) })
}

// cachedText is what render reads from dir, kept under key while the
// Watcher sees no change in dir (and its daily logs) and the day is the
// same (the daily logs it names); an unwatched dir is read each time.
func (s *Store) cachedText(key, dir string, now time.Time, render func() string) string {
	day := now.Format(DateLayout)
	gen, watched := s.watch.generation(dir)
	if watched {
		s.pmu.Lock()
		p, ok := s.prompts[key]
		s.pmu.Unlock()
		if ok && p.gen == gen && p.day == day {
			return p.text
		}
	}
	text := render()
	if watched {
		s.pmu.Lock()
		if len(s.prompts) >= maxCacheEntries {
			clear(s.prompts)
		}
		s.prompts[key] = cachedPrompt{gen: gen, day: day, text: text}
		s.pmu.Unlock()
	}
	return text
}

// renderDaily reads the agent's shared daily logs of yesterday and today
// from its workspace dir ("" when none).
func (s *Store) renderDaily(dir string, now time.Time) string {
	root, err := os.OpenRoot(filepath.Join(dir, DailyDir))
	if err != nil {
		return ""
	}
	defer root.Close()
	var b strings.Builder
	s.writeDailySections(&b, root, filepath.Join(dir, DailyDir), now)
	return b.String()
}

// renderUserSections reads the sections of userSections from udir.
func (s *Store) renderUserSections(udir string, now time.Time) string {
	root, err := os.OpenRoot(udir)
	if err != nil {
		return "" // no memory of their own yet
	}
	defer root.Close()
	var b strings.Builder
	s.writeFileSection(&b, root, udir, FileUser, "USER.md of this user (what you know about the person you are talking to)")
	s.writeFileSection(&b, root, udir, FileMemory, "MEMORY.md of this user (your long-term memory of them; only they see it)")
	if logs, err := root.OpenRoot(DailyDir); err == nil {
		s.writeDailySections(&b, logs, filepath.Join(udir, DailyDir), now)
		logs.Close()
	}
	return b.String()
}

// unreadableNote stands in for a file that exists but cannot be read
// safely (a symlink out of the workspace, no permission): the prompt
// stays usable and the agent can tell its user.
const unreadableNote = "[this file could not be read safely (for example a symlink leaving the workspace) and was skipped]"

// writeFileSection appends the section of the workspace file rel.
func (s *Store) writeFileSection(b *strings.Builder, root *os.Root, dir, rel, title string) {
	content, err := s.cache.read(root, dir, rel)
	if err != nil {
		content = unreadableNote
	}
	writeSection(b, title, content)
}

// writeSection appends "# title" and content, unless content is blank.
func writeSection(b *strings.Builder, title, content string) {
	content = strings.TrimSpace(content)
	if content == "" {
		return
	}
	b.WriteString("\n# ")
	b.WriteString(title)
	b.WriteString("\n\n")
	b.WriteString(content)
	b.WriteByte('\n')
}

// writeRecalled appends the recalled memory section.
func writeRecalled(b *strings.Builder, recalled []Snippet) {
	var mem strings.Builder
	for _, sn := range recalled {
		text := strings.TrimSpace(sn.Text)
		if text == "" {
			continue
		}
		mem.WriteString("- ")
		if sn.Source != "" {
			mem.WriteString("(" + sn.Source + ") ")
		}
		mem.WriteString(strings.ReplaceAll(text, "\n", "\n  "))
		mem.WriteByte('\n')
	}
	writeSection(b, "Recalled memory (may be relevant to this conversation)", mem.String())
}
