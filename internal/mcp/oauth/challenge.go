package oauth

import (
	"net/http"
	"strings"
)

// Challenge is what a 401 or 403 answer of an MCP server said in its
// WWW-Authenticate Bearer challenge (RFC 6750 §3, RFC 9728 §5.1).
type Challenge struct {
	Status           int
	ResourceMetadata string // resource_metadata: where the PRM is
	Scope            string // scope the request needs
	Error            string // invalid_token, insufficient_scope, ...
	Description      string // error_description
}

// ParseChallenge reads the Bearer challenge of a response's headers; other
// schemes are ignored.
func ParseChallenge(status int, h http.Header) Challenge {
	c := Challenge{Status: status}
	for _, v := range h.Values("WWW-Authenticate") {
		for _, ch := range splitChallenges(v) {
			if !strings.EqualFold(ch.scheme, "bearer") {
				continue
			}
			set := func(dst *string, key string) {
				if *dst == "" {
					*dst = ch.params[key]
				}
			}
			set(&c.ResourceMetadata, "resource_metadata")
			set(&c.Scope, "scope")
			set(&c.Error, "error")
			set(&c.Description, "error_description")
		}
	}
	return c
}

type challenge struct {
	scheme string
	params map[string]string
}

// splitChallenges parses one WWW-Authenticate value: challenges are a
// scheme token followed by comma-separated name=value parameters, values
// tokens or quoted strings (RFC 9110 §11.6.1).
func splitChallenges(v string) []challenge {
	var out []challenge
	s := v
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" {
			return out
		}
		tok, rest := readToken(s)
		if tok == "" {
			return out
		}
		r := strings.TrimLeft(rest, " \t")
		if strings.HasPrefix(r, "=") && len(out) > 0 {
			// name=value of the current challenge
			val, after := readValue(strings.TrimLeft(r[1:], " \t"))
			out[len(out)-1].params[strings.ToLower(tok)] = val
			s = after
			continue
		}
		out = append(out, challenge{scheme: tok, params: map[string]string{}})
		s = rest
	}
}

func readToken(s string) (string, string) {
	i := 0
	for i < len(s) && isTokenChar(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

func readValue(s string) (string, string) {
	if !strings.HasPrefix(s, `"`) {
		i := strings.IndexAny(s, ", \t")
		if i < 0 {
			return s, ""
		}
		return s[:i], s[i:]
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:]
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), ""
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~/", c) >= 0
}
