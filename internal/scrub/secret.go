package scrub

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// LooksLikeSecret reports whether s is, or contains, a credential: any
// shape the scrubber redacts (API key prefixes, JWTs, PEM keys, bearer
// credentials, URL passwords, "token=..." assignments) or, taken whole,
// a long random-looking hex or base64 string. Config uses it to refuse
// literal secrets, the MCP importer to move values into {env: VAR}. It
// is the one definition of "looks like a secret" in beamclaw.
func LooksLikeSecret(s string) bool {
	s = strings.TrimSpace(s)
	if scheme, cred, ok := strings.Cut(s, " "); ok && cred != "" && slices.Contains(schemes, strings.ToLower(scheme)) {
		return true // an Authorization value: "Basic dXNlcjpw..."
	}
	for _, r := range rules() {
		if _, _, ok := r.find(s, 0); ok {
			return true
		}
	}
	return randomLooking(s)
}

var (
	hexRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-fA-F]{32,}$`) })
	base64RE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9+/_\-]{32,}={0,2}$`) })
)

// randomLooking is a long hex string, or a long base64 one with mixed
// case and digits and few word separators (so that model names such as
// "Qwen2-72B-Instruct-AWQ-GPTQ-Int4" are not taken for one).
func randomLooking(s string) bool {
	if hexRE().MatchString(s) {
		return true
	}
	return base64RE().MatchString(s) && !strings.HasPrefix(s, "/") &&
		strings.Count(s, "-")+strings.Count(s, "_") <= 3 &&
		strings.ContainsAny(s, "0123456789") &&
		strings.IndexFunc(s, isUpperRune) >= 0 && strings.IndexFunc(s, isLowerRune) >= 0
}

func isUpperRune(r rune) bool { return r >= 'A' && r <= 'Z' }
func isLowerRune(r rune) bool { return r >= 'a' && r <= 'z' }

// secretNameRE matches names of things that hold credentials: config and
// JSON keys, environment variables, HTTP headers, command-line flags and
// URL query parameters.
var secretNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(token|secret|passw|api[_-]?key|apikey|access[_-]?key|private[_-]?key|` +
		`credential|auth|cookie|session|signature|(^|[_-])sig($|[_-])|(^|[_-])pat($|[_-])|(^|[_-])key$)`)
})

// IsSecretName reports whether name (a key, variable, header, flag or
// query parameter name) names a credential: "OPENAI_API_KEY",
// "X-Auth-Token", "password", "sig".
func IsSecretName(name string) bool {
	return secretNameRE().MatchString(strings.TrimLeft(name, "-"))
}
