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
	FileSoul:      "your personality and standing instructions",
	FileUser:      "your user",
	FileTools:     "how to use your tools",
	FileAgents:    "your workspace and habits",
	FileBootstrap: "first-run ritual, do this now",
	FileMemory:    "your long-term memory",
}

// SystemPrompt assembles the system prompt of the agent name: its
// workspace files in the order IDENTITY, SOUL, USER, TOOLS, AGENTS,
// BOOTSTRAP, MEMORY, then (without extras.User) yesterday's and today's
// daily logs (oldest first, so the newest is closest to the conversation),
// then the skills, the user's own memory (extras.User) and the recalled
// memory. What is the same for every user of the agent comes first, so
// the prefix stays byte-identical across users and turns. Each part sits
// under a "# ..." header; empty or blank files are skipped. An agent
// without a workspace gets FallbackPrompt followed by the extras. File
// contents are cached by path, modification time and size.
func (s *Store) SystemPrompt(name string, extras PromptExtras) (string, error) {
	dir, err := s.Dir(name)
	if err != nil {
		return "", err
	}
	now := s.clock.Now()
	day := now.Format(DateLayout)
	shared := extras.User == "" && !extras.Anonymous
	key := dir
	if !shared {
		key += "\x00users" // the files without the shared daily logs
	}
	gen, watched := s.watch.generation(dir)
	var files string
	var cached cachedPrompt
	if watched {
		s.pmu.Lock()
		p, ok := s.prompts[key]
		s.pmu.Unlock()
		if ok && p.gen == gen && p.day == day {
			if shared && len(extras.Memory) == 0 && p.withSkills != "" && p.skills == extras.Skills {
				return p.withSkills, nil
			}
			files, cached = p.text, p
		}
	}
	if files == "" {
		var found bool
		if files, found, err = s.promptFiles(name, dir, now, shared); err != nil {
			return "", err
		}
		if !found {
			var b strings.Builder
			b.WriteString(FallbackPrompt)
			b.WriteByte('\n')
			writeExtras(&b, extras.Skills, "", extras.Memory)
			return b.String(), nil
		}
		if watched {
			s.pmu.Lock()
			if len(s.prompts) >= maxCacheEntries {
				clear(s.prompts)
			}
			cached = cachedPrompt{gen: gen, day: day, text: files}
			s.prompts[key] = cached
			s.pmu.Unlock()
		}
	}
	var own string
	if extras.User != "" {
		own = s.userSections(name, extras.User, now)
	}
	if extras.Skills == "" && own == "" && len(extras.Memory) == 0 {
		return files, nil
	}
	var b strings.Builder
	b.Grow(len(files) + len(extras.Skills) + len(own) + 1024)
	b.WriteString(files)
	writeExtras(&b, extras.Skills, own, extras.Memory)
	prompt := b.String()
	if watched && shared && cached.text != "" && len(extras.Memory) == 0 {
		cached.skills, cached.withSkills = extras.Skills, prompt
		s.pmu.Lock()
		if p, ok := s.prompts[key]; ok && p.gen == gen && p.day == day {
			s.prompts[key] = cached
		}
		s.pmu.Unlock()
	}
	return prompt, nil
}

// promptFiles assembles the file part of the prompt (the header, the
// workspace files and, when daily, yesterday's and today's shared daily
// logs); found is false when the agent has no workspace.
func (s *Store) promptFiles(name, dir string, now time.Time, daily bool) (text string, found bool, err error) {
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
	fmt.Fprintf(&b, "You are the BeamClaw agent %q. The sections below come from the files of your workspace; keep them up to date with the workspace_memory tool.\n", name)
	for _, file := range promptOrder {
		s.writeFileSection(&b, root, dir, file, file+" ("+fileTitles[file]+")")
	}
	if daily {
		if logs, err := root.OpenRoot(DailyDir); err == nil {
			s.writeDailySections(&b, logs, filepath.Join(dir, DailyDir), now)
			logs.Close()
		}
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
	day := now.Format(DateLayout)
	gen, watched := s.watch.generation(udir)
	if watched {
		s.pmu.Lock()
		p, ok := s.prompts[udir]
		s.pmu.Unlock()
		if ok && p.gen == gen && p.day == day {
			return p.text
		}
	}
	text := s.renderUserSections(udir, now)
	if watched {
		s.pmu.Lock()
		if len(s.prompts) >= maxCacheEntries {
			clear(s.prompts)
		}
		s.prompts[udir] = cachedPrompt{gen: gen, day: day, text: text}
		s.pmu.Unlock()
	}
	return text
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

// writeExtras appends the skills section, the user's own sections (own,
// already rendered) and the recalled memory.
func writeExtras(b *strings.Builder, skills, own string, recalled []Snippet) {
	if sk := strings.TrimSpace(skills); sk != "" {
		b.WriteByte('\n')
		b.WriteString(sk)
		b.WriteByte('\n')
	}
	b.WriteString(own)
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
