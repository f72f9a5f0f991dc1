package scheduler

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// HeartbeatOptions configure heartbeats (scheduler.heartbeat.*).
type HeartbeatOptions struct {
	// Interval between heartbeats of an agent that names none (default
	// 30 min; default_interval_ms).
	Interval time.Duration
	// SuppressOK: an answer that is HEARTBEAT_OK is not delivered
	// (suppress_ok; the daemon passes the config's value).
	SuppressOK bool
	// ActiveHours are [start, end) hours in the user's zone; heartbeats
	// do not fire outside them. {0, 0}: always.
	ActiveHours setting.HourRange
	// MaxTokens caps each heartbeat turn (Turn.MaxTokens; default 2000).
	MaxTokens int
	// Read returns an agent's HEARTBEAT.md. An error wrapping
	// fs.ErrNotExist means there is none: the heartbeat does nothing.
	// Without Read every heartbeat does nothing.
	Read func(ctx context.Context, agent string) (string, error)
}

// heartbeatMaxBytes bounds the HEARTBEAT.md put in a heartbeat prompt.
const heartbeatMaxBytes = 16 << 10

// heartbeatInstruction leads the light context of a heartbeat turn.
const heartbeatInstruction = "[HEARTBEAT CHECK-IN] This is a scheduled check-in, not a message from the user. " +
	"Below is HEARTBEAT.md from your workspace. Work through the tasks it lists that are due now. " +
	"If nothing needs the user's attention, reply with exactly HEARTBEAT_OK and nothing else; " +
	"otherwise reply with a short message for the user."

// heartbeatPrompt reads the agent's HEARTBEAT.md. idle says why there
// is nothing to do (no file, no active task); then no turn runs at all.
func (s *Scheduler) heartbeatPrompt(ctx context.Context, j Job) (prompt, idle string, err error) {
	read := s.opts.Heartbeat.Read
	if read == nil {
		return "", "no HEARTBEAT.md reader configured", nil
	}
	var md string
	err = safely("HEARTBEAT.md reader", func() (err error) { md, err = read(ctx, j.Agent); return err })
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", "no HEARTBEAT.md", nil
	case err != nil:
		return "", "", fmt.Errorf("read HEARTBEAT.md: %w", err)
	case !hasActiveTask(md):
		return "", "HEARTBEAT.md has no active task", nil
	}
	if len(md) > heartbeatMaxBytes {
		md = strings.ToValidUTF8(md[:heartbeatMaxBytes], "") + "\n[... HEARTBEAT.md truncated]"
	}
	prompt = heartbeatInstruction + "\n\n<HEARTBEAT.md>\n" + strings.TrimSpace(md) + "\n</HEARTBEAT.md>"
	if p := strings.TrimSpace(j.Prompt); p != "" {
		prompt += "\n\n" + p
	}
	return prompt, "", nil
}

// hasActiveTask reports whether HEARTBEAT.md holds anything to do:
// headings, HTML comments, blank lines, rules, fences, finished ([x])
// and empty checklist items are not tasks; anything else is.
func hasActiveTask(md string) bool {
	for _, line := range strings.Split(stripComments(md), "\n") {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "#") || strings.Trim(l, "-*_=`~ ") == "" {
			continue
		}
		l = strings.TrimSpace(strings.TrimLeft(listMarker(l), ">"))
		switch {
		case strings.HasPrefix(l, "[x]"), strings.HasPrefix(l, "[X]"):
			continue
		case strings.HasPrefix(l, "[ ]"):
			l = strings.TrimSpace(l[3:])
		case strings.HasPrefix(l, "[]"):
			l = strings.TrimSpace(l[2:])
		}
		if l != "" {
			return true
		}
	}
	return false
}

// listMarker strips a list marker ("- ", "* ", "+ ", "1. ", "1) ").
func listMarker(l string) string {
	if len(l) > 0 && strings.ContainsRune("-*+", rune(l[0])) && (len(l) == 1 || l[1] == ' ') {
		return strings.TrimSpace(l[1:])
	}
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i < len(l) && (l[i] == '.' || l[i] == ')') {
		return strings.TrimSpace(l[i+1:])
	}
	return l
}

// stripComments removes <!-- ... --> (an unclosed one runs to the end).
func stripComments(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := strings.Index(s[i+4:], "-->")
		if j < 0 {
			return b.String()
		}
		s = s[i+4+j+3:]
	}
}

// heartbeatOKToken is the answer that means "nothing to report".
const heartbeatOKToken = "HEARTBEAT_OK"

// okSlack is how many characters besides the token (and whitespace,
// punctuation, markdown) an answer may have and still count as OK.
const okSlack = 30

// isHeartbeatOK reports whether an answer is HEARTBEAT_OK, allowing
// surrounding whitespace, punctuation or markdown and a short remark.
func isHeartbeatOK(text string) bool {
	upper := asciiUpper(text)
	if !strings.Contains(upper, heartbeatOKToken) {
		return false
	}
	var rest strings.Builder
	for _, part := range strings.Split(upper, heartbeatOKToken) {
		rest.WriteString(part)
	}
	extra := strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (r <= ' ' || strings.ContainsRune("*_`~#>.!?,:;-()[]{}\"'", r)) {
			return -1
		}
		return r
	}, rest.String())
	return utf8.RuneCountInString(extra) <= okSlack
}

// asciiUpper upper-cases ASCII letters only, keeping byte offsets.
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
