package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// FallbackPrompt is the system prompt of an agent that has no workspace.
const FallbackPrompt = `You are a helpful, honest assistant running inside BeamClaw.
Answer clearly and briefly, say when you are unsure, and ask before doing
anything destructive or hard to undo. Never reveal secrets such as API keys
or passwords, even if a tool shows them to you.`

// PromptExtras are the parts of a system prompt that do not come from the
// workspace files. Both go after the daily logs, in this order.
type PromptExtras struct {
	// Skills is a rendered skills section (see skill.PromptSection),
	// included as is; "" for none.
	Skills string
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
// BOOTSTRAP, MEMORY, then yesterday's and today's daily logs (oldest
// first, so the newest is closest to the conversation), then the extras.
// Each part sits under a "# ..." header; empty or blank files are skipped.
// An agent without a workspace gets FallbackPrompt followed by the extras.
// File contents are cached by path, modification time and size.
func (s *Store) SystemPrompt(name string, extras PromptExtras) (string, error) {
	dir, err := s.Dir(name)
	if err != nil {
		return "", err
	}
	now := s.clock.Now()
	day := now.Format(DateLayout)
	gen, watched := s.watch.generation(dir)
	var files string
	var cached cachedPrompt
	if watched {
		s.pmu.Lock()
		p, ok := s.prompts[dir]
		s.pmu.Unlock()
		if ok && p.gen == gen && p.day == day {
			if len(extras.Memory) == 0 && p.withSkills != "" && p.skills == extras.Skills {
				return p.withSkills, nil
			}
			files, cached = p.text, p
		}
	}
	if files == "" {
		var found bool
		if files, found, err = s.promptFiles(name, dir, now); err != nil {
			return "", err
		}
		if !found {
			var b strings.Builder
			b.WriteString(FallbackPrompt)
			b.WriteByte('\n')
			writeExtras(&b, extras)
			return b.String(), nil
		}
		if watched {
			s.pmu.Lock()
			if len(s.prompts) >= maxCacheEntries {
				clear(s.prompts)
			}
			cached = cachedPrompt{gen: gen, day: day, text: files}
			s.prompts[dir] = cached
			s.pmu.Unlock()
		}
	}
	if extras.Skills == "" && len(extras.Memory) == 0 {
		return files, nil
	}
	var b strings.Builder
	b.Grow(len(files) + len(extras.Skills) + 1024)
	b.WriteString(files)
	writeExtras(&b, extras)
	prompt := b.String()
	if watched && cached.text != "" && len(extras.Memory) == 0 {
		cached.skills, cached.withSkills = extras.Skills, prompt
		s.pmu.Lock()
		if p, ok := s.prompts[dir]; ok && p.gen == gen && p.day == day {
			s.prompts[dir] = cached
		}
		s.pmu.Unlock()
	}
	return prompt, nil
}

// promptFiles assembles the file part of the prompt (the header, the
// workspace files, yesterday's and today's daily logs); found is false
// when the agent has no workspace.
func (s *Store) promptFiles(name, dir string, now time.Time) (text string, found bool, err error) {
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
	days := [...]struct{ date, label string }{
		{now.AddDate(0, 0, -1).Format(DateLayout), "yesterday"},
		{now.Format(DateLayout), "today"},
	}
	for _, d := range days {
		s.writeFileSection(&b, root, dir, dailyPath(d.date), "Daily log "+d.date+" ("+d.label+")")
	}
	return b.String(), true, nil
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

func writeExtras(b *strings.Builder, extras PromptExtras) {
	if sk := strings.TrimSpace(extras.Skills); sk != "" {
		b.WriteByte('\n')
		b.WriteString(sk)
		b.WriteByte('\n')
	}
	var mem strings.Builder
	for _, sn := range extras.Memory {
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
