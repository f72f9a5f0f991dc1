package scrub

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/scrub/scrubtest"
)

// Every shape of the table, with a fixture for each of its prefixes, is
// found whole by its own finder, redacted by String, reported by
// LooksLikeSecret and never forwarded by a Stream however it is cut.
func TestEveryShapeIsCaught(t *testing.T) {
	examples := scrubtest.Shapes()
	names := map[string]bool{}
	for _, sh := range Shapes() {
		names[sh.Name] = true
		exs := examples[sh.Name]
		if len(exs) == 0 {
			t.Errorf("shape %s has no fixture in scrubtest.Shapes", sh.Name)
		}
		for _, p := range sh.prefixes {
			if !hasPrefixed(exs, p) {
				t.Errorf("shape %s: no fixture in scrubtest.Shapes starts with its prefix %q", sh.Name, p)
			}
		}
		for i, ex := range exs {
			t.Run(fmt.Sprintf("%s/%d", sh.Name, i), func(t *testing.T) {
				text := "before " + ex + " after"
				want := [][]int{{len("before "), len("before ") + len(ex)}}
				if diff := cmp.Diff(want, sh.FindAllStringIndex(text, -1)); diff != "" {
					t.Errorf("FindAllStringIndex (-want +got):\n%s", diff)
				}
				if got := String(text); got != "before "+Redacted+" after" {
					t.Errorf("String = %q", got)
				}
				if !LooksLikeSecret(ex) {
					t.Error("LooksLikeSecret = false")
				}
				checkStreamCuts(t, text)
			})
		}
	}
	for name := range examples {
		if !names[name] {
			t.Errorf("scrubtest.Shapes has fixtures for %s, which is no shape", name)
		}
	}
}

func hasPrefixed(ss []string, prefix string) bool {
	for _, s := range ss {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// A word that is, or may grow into, a prefix of a shape is held back:
// the stream knows every prefix of the table.
func TestStreamHoldsEveryShapePrefix(t *testing.T) {
	for _, sh := range Shapes() {
		for _, p := range sh.prefixes {
			for n := 1; n <= len(p); n++ {
				var got strings.Builder
				New().NewStream(func(s string) { got.WriteString(s) }).Write("see " + p[:n])
				if got.String() != "see " {
					t.Errorf("%s: writing %q forwarded %q, want %q", sh.Name, "see "+p[:n], got.String(), "see ")
				}
			}
		}
	}
}
