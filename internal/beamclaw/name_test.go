package beamclaw

import (
	"regexp"
	"strings"
	"testing"
)

// IsName accepts exactly what the rule's regular expression accepts.
func FuzzIsName(f *testing.F) {
	for _, s := range []string{"", "a", "default", "my-agent_2", "-a", "_a", "A", "a.b", "a/b", "é", strings.Repeat("a", 64), strings.Repeat("a", 65), "0"} {
		f.Add(s)
	}
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsName(s), re.MatchString(s); got != want {
			t.Fatalf("IsName(%q) = %v, want %v", s, got, want)
		}
	})
}
