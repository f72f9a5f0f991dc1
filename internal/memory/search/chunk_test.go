package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("w%d", i)
	}
	return strings.Join(w, " ")
}

func TestChunkText(t *testing.T) {
	tests := []struct {
		name          string
		text          string
		size, overlap int
		want          []Chunk
	}{
		{"blank", " \n\t ", 4, 1, nil},
		{"fits in one", "  one two\nthree  ", 4, 1, []Chunk{{Text: "one two\nthree", StartLine: 1, EndLine: 2}}},
		{"overlapping windows", words(7), 3, 1, []Chunk{
			{Text: "w0 w1 w2", StartLine: 1, EndLine: 1},
			{Text: "w2 w3 w4", StartLine: 1, EndLine: 1},
			{Text: "w4 w5 w6", StartLine: 1, EndLine: 1},
		}},
		{"no overlap", words(5), 2, 0, []Chunk{
			{Text: "w0 w1", StartLine: 1, EndLine: 1},
			{Text: "w2 w3", StartLine: 1, EndLine: 1},
			{Text: "w4", StartLine: 1, EndLine: 1},
		}},
		{"line ranges", "a b\n\nc d\ne", 2, 1, []Chunk{
			{Text: "a b", StartLine: 1, EndLine: 1},
			{Text: "b\n\nc", StartLine: 1, EndLine: 3},
			{Text: "c d", StartLine: 3, EndLine: 3},
			{Text: "d\ne", StartLine: 3, EndLine: 4},
		}},
		{"overlap clamped below size", words(4), 2, 9, []Chunk{
			{Text: "w0 w1", StartLine: 1, EndLine: 1},
			{Text: "w1 w2", StartLine: 1, EndLine: 1},
			{Text: "w2 w3", StartLine: 1, EndLine: 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ChunkText(tt.text, tt.size, tt.overlap)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ChunkText (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChunkTextDefaults(t *testing.T) {
	got := ChunkText(words(1000), 0, DefaultChunkOverlap)
	if len(got) != 3 {
		t.Fatalf("got %d chunks of 1000 words at 400/80, want 3", len(got))
	}
	if n := len(strings.Fields(got[0].Text)); n != DefaultChunkSize {
		t.Errorf("first chunk has %d words, want %d", n, DefaultChunkSize)
	}
}

// checkChunks asserts the chunker's properties: no chunk exceeds size
// words, consecutive chunks share overlap words, and every word of the
// text appears, in order, in some chunk.
func checkChunks(t *testing.T, text string, size, overlap int) {
	t.Helper()
	all := strings.Fields(text)
	chunks := ChunkText(text, size, overlap)
	if len(all) == 0 {
		if len(chunks) != 0 {
			t.Fatalf("blank text gave %d chunks", len(chunks))
		}
		return
	}
	pos := 0
	for i, c := range chunks {
		ws := strings.Fields(c.Text)
		if len(ws) > size || len(ws) == 0 {
			t.Fatalf("chunk %d has %d words (size %d)", i, len(ws), size)
		}
		if !strings.Contains(text, c.Text) {
			t.Fatalf("chunk %d is not a slice of the text", i)
		}
		if c.StartLine < 1 || c.EndLine < c.StartLine {
			t.Fatalf("chunk %d has lines %d-%d", i, c.StartLine, c.EndLine)
		}
		if i > 0 {
			pos -= min(overlap, pos)
		}
		for j, w := range ws {
			if pos+j >= len(all) || all[pos+j] != w {
				t.Fatalf("chunk %d word %d = %q, want word %d of the text", i, j, w, pos+j)
			}
		}
		pos += len(ws)
	}
	if pos != len(all) {
		t.Fatalf("chunks cover %d of %d words", pos, len(all))
	}
}

func TestChunkTextProperties(t *testing.T) {
	for _, n := range []int{1, 2, 9, 10, 11, 57, 400, 1001} {
		for _, p := range [][2]int{{1, 0}, {2, 1}, {10, 3}, {10, 9}, {400, 80}} {
			t.Run(fmt.Sprintf("n%d_size%d_overlap%d", n, p[0], p[1]), func(t *testing.T) {
				checkChunks(t, words(n), p[0], p[1])
			})
		}
	}
}

func FuzzChunkText(f *testing.F) {
	f.Add("one two three four five", 2, 1)
	f.Add("a\n\nb\tc  d\re", 3, 0)
	f.Add("Café\u00a0über\u2003x y", 1, 0)
	f.Add("\xff\xfe a b", 2, 5)
	f.Fuzz(func(t *testing.T, text string, size, overlap int) {
		size = 1 + abs(size)%50
		overlap = abs(overlap) % size
		checkChunks(t, text, size, overlap)
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n {
			return 0
		}
		return -n
	}
	return n
}
