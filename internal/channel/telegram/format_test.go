package telegram

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

func TestFormatGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "format", "*.md"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".md")
		t.Run(name, func(t *testing.T) {
			md, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := FormatHTML(string(md))
			if _, err := faketelegram.ParseHTML(got); err != nil {
				t.Errorf("Telegram would reject the HTML: %v\n%s", err, got)
			}
			golden(t, filepath.Join("format", name+".html"), got)
		})
	}
}

func TestFormatInline(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"escape", "a<b>&c", "a&lt;b&gt;&amp;c"},
		{"bold", "**x**", "<b>x</b>"},
		{"underscore bold", "__x__", "<b>x</b>"},
		{"italic star", "*x*", "<i>x</i>"},
		{"lonely star", "2 * 3 = 6", "2 * 3 = 6"},
		{"snake case", "a_b_c", "a_b_c"},
		{"code keeps stars", "`**x**`", "<code>**x**</code>"},
		{"double backtick", "``a ` b``", "<code>a ` b</code>"},
		{"strike", "~~x~~", "<s>x</s>"},
		{"link", "[a](https://x.y/?q=\"1\")", `<a href="https://x.y/?q=&quot;1&quot;">a</a>`},
		{"bad scheme", "[a](ftp://x)", "[a](ftp://x)"},
		{"escaped star", `\*x\*`, "*x*"},
		{"unclosed bold", "**x", "**x"},
		{"heading", "## Title ##", "<b>Title</b>"},
		{"bullet", "- item", "• item"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, FormatHTML(tc.in)); d != "" {
				t.Errorf("FormatHTML(%q) (-want +got):\n%s", tc.in, d)
			}
		})
	}
}

func FuzzFormatHTML(f *testing.F) {
	for _, s := range []string{"**a**", "*a _b_ c*", "```go\nx<y\n```", "[a](https://b)", "> q\n> r",
		"`a", "__", "~~~~", "\\", "&amp;", "a\r\nb", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		out := FormatHTML(md)
		if _, err := faketelegram.ParseHTML(out); err != nil {
			t.Fatalf("FormatHTML(%q) = %q: %v", md, out, err)
		}
		for _, part := range Split(out, 64) {
			if _, err := faketelegram.ParseHTML(part); err != nil {
				t.Fatalf("Split part %q of %q: %v", part, out, err)
			}
		}
	})
}
