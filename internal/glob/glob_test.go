package glob

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// The cases of both callers: environment names (internal/tool,
// internal/sandbox) and sandbox.policy's tool names and sources.
func TestMatch(t *testing.T) {
	tests := []struct {
		name, pattern, s string
		want             bool
	}{
		{"star matches empty", "*", "", true},
		{"star matches all", "*", "anything", true},
		{"exact", "PATH", "PATH", true},
		{"exact is whole", "ab", "abc", false},
		{"prefix", "a*", "abc", true},
		{"suffix", "*c", "abc", true},
		{"both ends, nothing between", "a*c", "ac", true},
		{"middles in order", "a*b*c", "axxbyyc", true},
		{"middles out of order", "a*b*c", "acb", false},
		{"overlapping ends", "a*a", "a", false},
		{"repeated part", "*ab*ab", "abab", true},
		{"env prefix", "LC_*", "LC_ALL", true},
		{"env prefix alone", "LC_*", "LC_", true},
		{"env prefix other", "LC_*", "LANG", false},
		{"env suffix", "*_API_KEY", "OPENAI_API_KEY", true},
		{"env suffix is whole", "*_API_KEY", "API_KEY", false},
		{"env infix", "*SECRET*", "TELEGRAM_WEBHOOK_SECRET", true},
		{"env case kept", "*_TOKEN", "github_token", false},
		{"tool wildcard", "github__*", "github__list", true},
		{"tool other", "github__*", "linear__create", false},
		{"source wildcard", "mcp:*", "mcp:linear", true},
		{"source other kind", "mcp:*", "builtin", false},
		{"tool name exact", "bash", "bash", true},
		{"tool name longer", "bash", "bash2", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Match(tt.pattern, tt.s); got != tt.want {
				t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
			}
		})
	}
}

func TestAny(t *testing.T) {
	patterns := []string{"PATH", "LC_*", "*_token"}
	tests := []struct {
		name, s        string
		want, wantFold bool
	}{
		{"exact", "PATH", true, true},
		{"wildcard", "LC_ALL", true, true},
		{"case differs", "GITHUB_TOKEN", false, true},
		{"lower name", "path", false, true},
		{"none", "EDITOR", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Any(patterns, tt.s); got != tt.want {
				t.Errorf("Any(%q) = %v, want %v", tt.s, got, tt.want)
			}
			if got := AnyFold(patterns, tt.s); got != tt.wantFold {
				t.Errorf("AnyFold(%q) = %v, want %v", tt.s, got, tt.wantFold)
			}
		})
	}
	if Any(nil, "") || AnyFold(nil, "x") {
		t.Error("no pattern matched something")
	}
}

// Match agrees with the regular expression that reads '*' as ".*".
func FuzzMatch(f *testing.F) {
	f.Add("a*b*c", "axxbyyc")
	f.Add("*ab*ab", "abab")
	f.Add("a*a", "a")
	f.Add("LC_*", "LC_ALL")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if !utf8.ValidString(pattern) || !utf8.ValidString(s) {
			return // the regexp, the oracle, reads UTF-8 only
		}
		parts := strings.Split(pattern, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re := regexp.MustCompile(`^(?s:` + strings.Join(parts, ".*") + `)$`)
		if got, want := Match(pattern, s), re.MatchString(s); got != want {
			t.Fatalf("Match(%q, %q) = %v, want %v", pattern, s, got, want)
		}
	})
}
