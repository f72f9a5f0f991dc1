package tool_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/beamclaw/beamclaw-go/internal/tool"
)

func TestViewExact(t *testing.T) {
	var lines strings.Builder
	for i := range 10 {
		fmt.Fprintf(&lines, "line %02d\n", i) // 8 bytes a line, 80 in all
	}
	ees := strings.Repeat("é", 50) // 100 bytes, runes start at even offsets
	far := "a\n" + strings.Repeat("b", 98)
	cases := []struct {
		name, s, handle string
		limit           int
		want            string
	}{
		{"whole lines", lines.String(), "out-1", 40, "line 00\nline 01\nline 02\n" +
			`[... 40 bytes (5 lines) left out: bytes 24–64 of 80. The whole output is kept: call tool_output with {"id":"out-1","offset":24} to read on ...]` +
			"\nline 08\nline 09\n"},
		{"runes, no lines, not kept", ees, "", 35, strings.Repeat("é", 10) + "\n" +
			"[... 66 bytes left out: bytes 20–86 of 100; the whole output was not kept ...]\n" + strings.Repeat("é", 7)},
		{"a line break early in the head is not worth half of it", far, "out-2", 20, far[:12] + "\n" +
			`[... 80 bytes left out: bytes 12–92 of 100. The whole output is kept: call tool_output with {"id":"out-2","offset":12} to read on ...]` +
			"\n" + far[92:]},
		{"fits", "short", "out-3", 5, "short"},
		{"no limit", "short", "out-3", 0, "short"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tool.View(tc.s, tc.limit, tc.handle); got != tc.want {
				t.Errorf("View =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// Whatever the text, a view shows at most limit bytes of it, a head and a
// tail of the output exactly, cut where UTF-8 allows.
func TestViewBounds(t *testing.T) {
	pieces := []string{"x", "é", "€", "😀", "\n", "line\n", "  "}
	for n := range 60 {
		var b strings.Builder
		for i := 0; b.Len() < 300+n*37; i++ {
			b.WriteString(pieces[(i*7+n)%len(pieces)])
		}
		s := b.String()
		for _, limit := range []int{8, 31, 64, 200} {
			v := tool.View(s, limit, "h")
			head, rest, ok := strings.Cut(v, "[... ")
			_, tail, ok2 := strings.Cut(rest, " ...]\n")
			head = strings.TrimSuffix(head, "\n")
			if !ok || !ok2 || !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) {
				t.Fatalf("view of %d bytes at %d is not head, note, tail: %q", len(s), limit, v)
			}
			if len(head)+len(tail) > limit || !utf8.ValidString(head) || !utf8.ValidString(tail) {
				t.Fatalf("view of %d bytes at %d shows %d+%d bytes: %q", len(s), limit, len(head), len(tail), v)
			}
		}
	}
}

func TestPage(t *testing.T) {
	cases := []struct {
		s             string
		offset, limit int
		from, to      int
	}{
		{"abcdef", 2, 3, 2, 5},
		{"abc", 1, 100, 1, 3},
		{"abc", 3, 10, 3, 3},
		{"aéb", 2, 1, 1, 3}, // inside é: back to its start, and a page holds at least it
		{"aéb", 0, 2, 0, 1}, // ends inside é: it is the next page's
		{"aéb", 1, 2, 1, 3},
	}
	for _, tc := range cases {
		if from, to := tool.Page(tc.s, tc.offset, tc.limit); from != tc.from || to != tc.to {
			t.Errorf("Page(%q, %d, %d) = %d, %d; want %d, %d", tc.s, tc.offset, tc.limit, from, to, tc.from, tc.to)
		}
	}
}

func TestPageSize(t *testing.T) {
	for _, tc := range []struct{ window, want int }{
		{128000, 15360}, {200000, 24000}, {8192, tool.MinPageBytes}, {1048576, tool.MaxPageBytes}, {0, tool.MinPageBytes},
	} {
		if got := tool.PageBytesFor(tc.window); got != tc.want {
			t.Errorf("PageBytesFor(%d) = %d, want %d", tc.window, got, tc.want)
		}
	}
	p := tool.Paging{PerTool: map[string]int{"bash": 9000}}
	if got := p.For("bash", 128000); got != 9000 {
		t.Errorf("bash's own page size: %d", got)
	}
	if got := p.For("curl", 128000); got != 15360 {
		t.Errorf("curl's page size from the window: %d", got)
	}
	p.Bytes = 5000
	if got := p.For("curl", 128000); got != 5000 {
		t.Errorf("curl's page size from tools.page_bytes: %d", got)
	}
}
