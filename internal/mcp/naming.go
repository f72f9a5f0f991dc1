package mcp

import "strings"

// maxToolName is the longest function name providers accept
// (^[a-zA-Z0-9_-]{1,64}$, OpenAI's rule, the strictest in use).
const maxToolName = 64

// ToolName returns the name a tool of server is exposed under:
// "<server>__<tool>", with every character outside [a-zA-Z0-9_-] replaced
// by '_'. When that replacement changed anything, or the result is longer
// than 64, the name is cut and suffixed with '_' and 8 hex digits of the
// SHA-256 of the raw "<server>__<tool>", so distinct raw names stay
// distinct and the result depends only on the input.
func ToolName(server, tool string) string {
	raw := server + "__" + tool
	clean, lossy := sanitize(raw)
	if !lossy && len(clean) <= maxToolName {
		return clean
	}
	suffix := "_" + shaHex(raw)[:8]
	if len(clean) > maxToolName-len(suffix) {
		clean = clean[:maxToolName-len(suffix)]
	}
	return clean + suffix
}

// sanitize maps raw onto [a-zA-Z0-9_-]; lossy reports whether anything was
// replaced (or raw was empty).
func sanitize(raw string) (clean string, lossy bool) {
	var b strings.Builder
	b.Grow(len(raw))
	for _, r := range raw {
		if validNameRune(r) {
			b.WriteRune(r)
			continue
		}
		b.WriteByte('_')
		lossy = true
	}
	return b.String(), lossy || raw == ""
}

func validNameRune(r rune) bool {
	return r == '_' || r == '-' ||
		(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}

// ValidToolName reports whether name satisfies ^[a-zA-Z0-9_-]{1,64}$.
func ValidToolName(name string) bool {
	if name == "" || len(name) > maxToolName {
		return false
	}
	for _, r := range name {
		if !validNameRune(r) {
			return false
		}
	}
	return true
}
