package scrub

import (
	"strings"
	"sync"
)

// rule finds one kind of secret (see finder).
type rule struct {
	name string
	find finder
}

// rules are applied in this order: a URL's password first (a key glued
// to a scheme, "...ghp_xyzhttps://u:pw@host", would otherwise take the
// word the rule looks for before "://"), then the credential shapes in
// the table's order, then key=value, which handles auth schemes itself
// ("token: Bearer xyz" loses xyz) and comes before Bearer, whose match
// could otherwise swallow a key name.
var rules = sync.OnceValue(func() []rule {
	rs := []rule{{"url_password", findURLPassword}}
	for _, sh := range shapes() {
		rs = append(rs, rule{sh.Name, sh.find})
	}
	return append(rs, rule{"key_value", findAssignment}, rule{"bearer", findBearer})
})

// firstIndex returns the earliest index at or after from where one of lits
// occurs, or -1.
func firstIndex(s string, from int, lits []string) int {
	i, _ := firstMatch(s, from, lits)
	return i
}

// firstMatch is firstIndex that also returns the length of the literal
// found there.
func firstMatch(s string, from int, lits []string) (int, int) {
	best, n := -1, 0
	for _, l := range lits {
		limit := len(s)
		if best >= 0 {
			limit = min(len(s), best+len(l)-1)
		}
		if from > limit {
			continue
		}
		if i := strings.Index(s[from:limit], l); i >= 0 {
			best, n = from+i, len(l)
		}
	}
	return best, n
}

// findURLPassword finds the password of scheme://user:password@host.
func findURLPassword(s string, from int) (int, int, bool) {
	for {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			return 0, 0, false
		}
		p := from + i
		from = p + 3
		if p == 0 || !isWordByte(s[p-1]) {
			continue
		}
		colon, j := -1, from
		for ; j < len(s) && !isSpace(s[j]) && strings.IndexByte("/?#@", s[j]) < 0; j++ {
			if s[j] == ':' && colon < 0 {
				colon = j
			}
		}
		if j < len(s) && s[j] == '@' && colon >= 0 && j > colon+1 {
			return colon + 1, j, true
		}
	}
}

// findBearer finds the credential after the word "Bearer" (or "bearer",
// "BEARER") and white space, when it looks like a token rather than a word.
func findBearer(s string, from int) (int, int, bool) {
	for {
		i := firstIndex(s, from, []string{"earer", "EARER"})
		if i < 0 {
			return 0, 0, false
		}
		from = i + 1
		b := i - 1
		if b < 0 || s[b]|0x20 != 'b' || (b > 0 && isWordByte(s[b-1])) {
			continue
		}
		j := i + 5
		if j >= len(s) || !isSpace(s[j]) {
			continue
		}
		start := skipSpace(s, j)
		end := start
		for end < len(s) && !isSpace(s[end]) && strings.IndexByte("\"'`", s[end]) < 0 {
			end++
		}
		if keepCredential(s[start:end]) {
			return start, end, true
		}
	}
}

// keepCredential accepts what looks like a token after "Bearer", not an
// English word ("the bearer of bad news").
func keepCredential(v string) bool {
	if len(v) >= 20 {
		return true
	}
	return len(v) >= 8 && strings.ContainsAny(v, "0123456789+/=_-.~[")
}
