package tool

import "strings"

// defaultEnvAllow is what a child process inherits unless config adds
// names: the variables programs need to behave, nothing that authenticates.
var defaultEnvAllow = []string{"PATH", "HOME", "LANG", "LC_*", "TERM", "TZ", "USER", "TMPDIR"}

// secretPatterns are never passed on, whatever allow says. Matching is
// case-insensitive; '*' matches any run of characters.
var secretPatterns = []string{"*_API_KEY", "*_APIKEY", "*_TOKEN", "*_SECRET", "*SECRET*", "*PASSWORD*", "*PASSWD*", "AWS_*"}

// FilterEnv returns the entries of environ ("NAME=value") a child process
// may see: names matching the default allowlist or allow, minus any name
// matching deny or a secret pattern (*_API_KEY, *_TOKEN, *_SECRET,
// *SECRET*, *PASSWORD*, AWS_*), which win over allow. Patterns may use
// '*' as a wildcard. Order is kept; malformed entries are dropped.
func FilterEnv(environ []string, allow []string, deny []string) []string {
	out := make([]string, 0, len(defaultEnvAllow))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if !matchAny(name, defaultEnvAllow, false) && !matchAny(name, allow, false) {
			continue
		}
		if matchAny(name, secretPatterns, true) || matchAny(name, deny, true) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func matchAny(name string, patterns []string, fold bool) bool {
	if fold {
		name = strings.ToUpper(name)
	}
	for _, p := range patterns {
		if fold {
			p = strings.ToUpper(p)
		}
		if wildcard(p, name) {
			return true
		}
	}
	return false
}

// wildcard matches s against p where '*' matches any run of characters.
func wildcard(p, s string) bool {
	parts := strings.Split(p, "*")
	if len(parts) == 1 {
		return p == s
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
	return strings.HasSuffix(s, last) && len(s) >= len(last)
}
