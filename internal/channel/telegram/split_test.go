package telegram

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

const splitSep = "\n-----8<-----\n"

// goldenLimit keeps the golden files readable.
const goldenLimit = 120

func TestSplitGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "split", "*.html"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".html")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			parts := Split(string(src), goldenLimit)
			for i, p := range parts {
				if n := utf16Len(p); n > goldenLimit {
					t.Errorf("part %d has %d units, over %d", i, n, goldenLimit)
				}
				if _, err := faketelegram.ParseHTML(p); err != nil {
					t.Errorf("part %d is not valid Telegram HTML: %v\n%s", i, err, p)
				}
			}
			golden(t, filepath.Join("split", name+".golden"), strings.Join(parts, splitSep)+"\n")
		})
	}
}

func TestSplitShortUnchanged(t *testing.T) {
	in := "<b>short</b> &amp; sweet"
	if got := Split(in, MaxMessageLen); len(got) != 1 || got[0] != in {
		t.Errorf("Split = %q", got)
	}
}

func TestSplitLongAnswer(t *testing.T) {
	md := strings.Repeat("A sentence with **bold** & <angles>.\n", 400)
	html := FormatHTML(md)
	parts := Split(html, MaxMessageLen)
	if len(parts) < 4 {
		t.Fatalf("%d parts for %d units", len(parts), utf16Len(html))
	}
	var plain strings.Builder
	for i, p := range parts {
		text, err := faketelegram.ParseHTML(p)
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		if utf16Len(text) > MaxMessageLen {
			t.Errorf("part %d too long", i)
		}
		if !strings.HasSuffix(text, ".") {
			t.Errorf("part %d does not end at a line break: %q", i, text[max(0, len(text)-20):])
		}
		plain.WriteString(text + "\n")
	}
	want, _ := faketelegram.ParseHTML(html)
	if strings.ReplaceAll(plain.String(), "\n", "") != strings.ReplaceAll(want, "\n", "") {
		t.Error("text lost or duplicated across parts")
	}
}

func BenchmarkSplit(b *testing.B) {
	html := FormatHTML(strings.Repeat("Some **bold** text and `code` here, then more words.\n\n", 600))
	b.ReportAllocs()
	for b.Loop() {
		Split(html, MaxMessageLen)
	}
}

func BenchmarkFormatHTML(b *testing.B) {
	md := strings.Repeat("Some **bold** text, _italic_, [a link](https://e.com) and `code`.\n", 200)
	b.ReportAllocs()
	for b.Loop() {
		FormatHTML(md)
	}
}
