package openai

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStripThinking(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no tags", "plain text", "plain text"},
		{"think block", "<think>plan</think>answer", "answer"},
		{"thinking block and whitespace", "<thinking>a\nb</thinking>\n\n  answer", "answer"},
		{"reasoning block mid text", "one <reasoning>x</reasoning>two", "one two"},
		{"upper case", "<THINK>x</Think>ok", "ok"},
		{"two blocks", "<think>a</think>b<think>c</think>d", "bd"},
		{"unclosed hides rest", "shown<think>never closed", "shown"},
		{"other tags untouched", "<b>bold</b> <tool_call>{}</tool_call>", "<b>bold</b> <tool_call>{}</tool_call>"},
		{"partial tag at end is text", "a <thin", "a <thin"},
		{"lone angle brackets", "1 < 2 and 3 > 2 <", "1 < 2 and 3 > 2 <"},
		{"mismatched close ignored", "<think>a</thinking>b</think>c", "c"},
		{"tag joined across a block", "<thi<think>x</think>nk>secret</think>shown", "<thishown"},
		{"tag joined across two blocks", "<t<think>a</think>h<think>b</think>ink>s</think>ok", "<thok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stripThinking(tt.in); got != tt.want {
				t.Errorf("stripThinking(%q) = %q, want %q", tt.in, got, tt.want)
			}
			for i := 0; i <= len(tt.in); i++ {
				if got := streamed(tt.in, i, 1); got != tt.want {
					t.Fatalf("split at %d: %q, want %q", i, got, tt.want)
				}
			}
		})
	}
}

// streamed runs s through a filter in pieces: one cut at split, then
// pieces of size step.
func streamed(s string, split, step int) string {
	var f thinkFilter
	var out strings.Builder
	out.WriteString(f.Write(s[:split]))
	rest := s[split:]
	for rest != "" {
		n := min(step, len(rest))
		out.WriteString(f.Write(rest[:n]))
		rest = rest[n:]
	}
	out.WriteString(f.Flush())
	return out.String()
}

func FuzzThinkFilter(f *testing.F) {
	for _, s := range []string{
		"<think>a</think>b", "x<thinking>y</thinking>z", "<reasoning>r</reasoning>", "<thi", "</think>",
		"<thi<think>x</think>nk>s</think>", "<<think>>", "a<THINK>b</think>c", "<think><think>a</think>b</think>",
	} {
		f.Add(s, 3, 2)
	}
	f.Fuzz(func(t *testing.T, s string, split, step int) {
		if split < 0 || split > len(s) || step <= 0 || step > 64 {
			return
		}
		whole := stripThinking(s)
		if got := streamed(s, split, step); got != whole {
			t.Fatalf("streamed %q (split %d step %d) = %q, whole = %q", s, split, step, got, whole)
		}
		lower := strings.ToLower(whole)
		for _, tag := range reasoningTags {
			if i := strings.Index(lower, "<"+tag+">"); i >= 0 && strings.Contains(lower[i:], "</"+tag+">") {
				t.Fatalf("output %q of %q keeps a closed <%s> block", whole, s, tag)
			}
		}
		if utf8.ValidString(s) && !utf8.ValidString(whole) {
			t.Fatalf("output %q of valid UTF-8 %q is not valid UTF-8", whole, s)
		}
	})
}

// stripThinking removes reasoning blocks from a complete text: the
// streaming filter fed all at once, the oracle for split feeds.
func stripThinking(s string) string {
	var f thinkFilter
	return f.Write(s) + f.Flush()
}
