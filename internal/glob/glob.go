// Package glob matches names against patterns in which '*' stands for
// any run of characters: the environment allow and deny lists of tool
// processes and sandboxed runs, and sandbox.policy's tool rules. It
// imports only the standard library; any package may import it.
package glob

import "strings"

// Match reports whether s matches pattern, in which '*' matches any run
// of characters (the empty one too) and every other character itself.
func Match(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}

// Any reports whether s matches one of patterns.
func Any(patterns []string, s string) bool {
	for _, p := range patterns {
		if Match(p, s) {
			return true
		}
	}
	return false
}

// AnyFold is Any ignoring case ("*_token" matches "GITHUB_TOKEN").
func AnyFold(patterns []string, s string) bool {
	s = strings.ToUpper(s)
	for _, p := range patterns {
		if Match(strings.ToUpper(p), s) {
			return true
		}
	}
	return false
}
