package protocol

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Markdown is the session as a readable transcript: its facts, then each
// message under its role, tool calls and their results as quoted lines
// (`beamclaw sessions show`, `beamclaw sessions export --format md`, and
// GET /control/sessions/{id}/export?format=markdown).
func (d SessionDetail) Markdown() string {
	s := d.Session
	var b strings.Builder
	title := s.Title
	if title == "" {
		title = s.ID
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "- session: `%s`\n- agent: %s\n- user: %s\n- channel: %s\n- created: %s\n- updated: %s\n",
		s.ID, s.Agent, s.User, s.Channel, s.Created.Local().Format(time.RFC3339), s.Updated.Local().Format(time.RFC3339))
	if !s.Archived.IsZero() {
		fmt.Fprintf(&b, "- archived: %s\n", s.Archived.Local().Format(time.RFC3339))
	}
	if u := d.Usage; u != nil {
		fmt.Fprintf(&b, "- tokens: %d in (%d cached), %d out, in %d model calls\n", u.In, u.Cached, u.Out, u.Calls)
	}
	for _, m := range d.Messages {
		switch m.Role {
		case "user":
			fmt.Fprintf(&b, "\n## You\n\n%s\n", m.Content)
		case "assistant":
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "\n> tool `%s` %s\n", tc.Name, OneLine(string(tc.Args), 200))
			}
			if strings.TrimSpace(m.Content) != "" {
				fmt.Fprintf(&b, "\n## %s\n\n%s\n", s.Agent, m.Content)
			}
		case "tool":
			fmt.Fprintf(&b, "\n> result of `%s`: %s\n", m.Name, OneLine(m.Content, 200))
		case "system":
			fmt.Fprintf(&b, "\n> system: %s\n", OneLine(m.Content, 200))
		}
	}
	for _, o := range d.Outputs {
		fence := fenceFor(o.Content)
		fmt.Fprintf(&b, "\n## Output %s of `%s`, kept whole (%d bytes)\n\n%s\n%s", o.ID, o.Tool, o.Bytes, fence, o.Content)
		if !strings.HasSuffix(o.Content, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(fence + "\n")
	}
	return b.String()
}

// OneLine squashes whitespace and cuts s to max runes with an ellipsis.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// fenceFor is a code fence longer than any run of backticks in s.
func fenceFor(s string) string {
	longest, run := 0, 0
	for i := range len(s) {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
