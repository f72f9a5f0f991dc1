package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestMarkdownRendersForTheTerminal(t *testing.T) {
	src := "# Plan\n\nSome **bold** and *soft* text with `code` and a [link](https://example.com).\n\n" +
		"- one\n- two\n  - nested\n\n1. first\n2. second\n\n> quoted\n\n```go\nfunc main() {}\n```\n\n" +
		"| name | size |\n|---|---|\n| a | 1 |\n| bb | 22 |\n\n---\n"
	got := newMarkdown("ascii").render(src, 80)
	for _, want := range []string{
		"# Plan", "Some bold and soft text with `code` and a link (https://example.com).",
		"• one\n• two\n  • nested", "1. first\n2. second", "│ quoted", "  func main() {}",
		"name │ size", "a    │ 1", "bb   │ 22", "────",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered text lacks %q:\n%s", want, got)
		}
	}
	dark := newMarkdown("dark").render(src, 80)
	if dark == got || ansi.Strip(dark) == "" {
		t.Errorf("the dark style added no attributes:\n%s", dark)
	}
	if plain := ansi.Strip(dark); !strings.Contains(plain, "Some bold and soft text") || !strings.Contains(plain, "func main() {}") {
		t.Errorf("the dark style lost text:\n%s", plain)
	}
}

func TestMarkdownWrapsToTheWidth(t *testing.T) {
	src := strings.Repeat("word ", 40) + "\n\n- " + strings.Repeat("item ", 20)
	for _, style := range []string{"ascii", "dark"} {
		out := newMarkdown(style).render(src, 30)
		for _, line := range strings.Split(out, "\n") {
			if w := ansi.StringWidth(line); w > 30 {
				t.Errorf("%s: line of %d columns: %q", style, w, line)
			}
		}
		if n := strings.Count(ansi.Strip(out), "word"); n != 40 {
			t.Errorf("%s: %d of 40 words kept", style, n)
		}
	}
}

func FuzzMarkdownRender(f *testing.F) {
	for _, s := range []string{"# h\n\ntext", "- a\n  - b\n", "| a |\n|---|\n| b |", "```\ncode\n```", "> q\n> > qq", "<b>x</b>", "![alt](u)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, style := range []string{"ascii", "dark"} {
			_ = newMarkdown(style).render(src, 20) // never panics
		}
	})
}
