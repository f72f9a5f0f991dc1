package scrub

import (
	"regexp"
	"strings"
)

// rule is one kind of secret. find returns the next secret at or after
// from as s[start:end]; it must be cheap and allocation-free when there is
// none, because String calls every rule's find on every text.
type rule struct {
	name string
	find func(s string, from int) (start, end int, ok bool)
}

// rules are applied in this order: rules that replace larger regions (PEM
// blocks, JWTs) come first so that a smaller rule cannot cut them in half;
// key=value handles auth schemes itself ("token: Bearer xyz" loses xyz) and
// comes before Bearer, whose match could otherwise swallow a key name.
var rules = []rule{
	{"pem_private_key", reFind([]string{"-----BEGIN"}, `-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`+
		`(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`+
		`|(?:\s*(?:[A-Za-z0-9+/=]{16,}|[A-Za-z-]+:[^\n]*))*)`, nil)},
	{"jwt", reFind([]string{"eyJ"}, `eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`, keepStart)},
	{"url_password", findURLPassword},
	{"openai_anthropic_openrouter", token{[]string{"sk-"}, urlSafe, 16, 0, keepSK}.find},
	{"groq", token{[]string{"gsk_"}, alnum, 16, 0, keepStart}.find},
	{"github", token{[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, alnum, 16, 0, keepStart}.find},
	{"github_fine_grained", token{[]string{"github_pat_"}, word, 20, 0, keepStart}.find},
	{"slack", token{[]string{"xoxb-", "xoxp-", "xoxa-", "xapp-"}, alnumDash, 10, 0, keepStart}.find},
	{"aws_key_id", token{[]string{"AKIA", "ASIA"}, upperDigit, 16, 16, keepWord}.find},
	{"google", token{[]string{"AIza"}, urlSafe, 35, 35, keepStart}.find},
	{"google_oauth", token{[]string{"ya29."}, urlSafeDot, 20, 0, keepStart}.find},
	{"gitlab", token{[]string{"glpat-"}, urlSafe, 20, 0, keepStart}.find},
	{"stripe", token{[]string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"}, alnum, 16, 0, keepStart}.find},
	{"telegram_bot", findTelegram},
	{"key_value", findAssignment},
	{"bearer", findBearer},
}

// token finds a literal prefix followed by at least minRun (and, when
// maxRun > 0, at most maxRun) characters of a class: the shape of most API
// keys. keep, when set, rejects matches that only look like keys.
type token struct {
	prefixes       []string
	class          func(byte) bool
	minRun, maxRun int
	keep           func(s string, start, end int) bool
}

func (t token) find(s string, from int) (int, int, bool) {
	for from < len(s) {
		start, n := firstMatch(s, from, t.prefixes)
		if start < 0 {
			return 0, 0, false
		}
		from = start + 1
		p := start + n
		end := p
		for end < len(s) && t.class(s[end]) && (t.maxRun == 0 || end-p < t.maxRun) {
			end++
		}
		if end-p >= t.minRun && (t.keep == nil || t.keep(s, start, end)) {
			return start, end, true
		}
	}
	return 0, 0, false
}

func alnum(c byte) bool      { return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func word(c byte) bool       { return alnum(c) || c == '_' }
func alnumDash(c byte) bool  { return alnum(c) || c == '-' }
func urlSafe(c byte) bool    { return word(c) || c == '-' }
func urlSafeDot(c byte) bool { return urlSafe(c) || c == '.' }
func upperDigit(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' }

// reFind builds a finder from literals that every match contains and a
// regular expression. The secret is capture group 1 when the expression
// has one, else the whole match; keep, when set, rejects matches that only
// look like secrets.
func reFind(lits []string, expr string, keep func(s string, start, end int) bool) func(string, int) (int, int, bool) {
	re := regexp.MustCompile(expr)
	return func(s string, from int) (int, int, bool) {
		for from < len(s) {
			c := firstIndex(s, from, lits)
			if c < 0 {
				return 0, 0, false
			}
			m := re.FindStringSubmatchIndex(s[c:])
			if m == nil {
				return 0, 0, false
			}
			start, end := c+m[0], c+m[1]
			if len(m) >= 4 && m[2] >= 0 {
				start, end = c+m[2], c+m[3]
			}
			if keep == nil || keep(s, start, end) {
				return start, end, true
			}
			from = c + m[0] + 1
		}
		return 0, 0, false
	}
}

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

// keepSK accepts the known sk- key families, and other sk- values only
// when they hold a digit (real keys do; hyphenated words do not), and
// never in the middle of a word ("risk-", "task-").
func keepSK(s string, start, end int) bool {
	if start > 0 && (isWordByte(s[start-1]) || s[start-1] == '-') {
		return false
	}
	v := s[start:end]
	for _, p := range []string{"sk-proj-", "sk-ant-", "sk-or-", "sk-svcacct-", "sk-admin-"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return strings.ContainsAny(v[3:], "0123456789")
}

// keepStart accepts a match that starts a word: keys stand on their own
// in text ("(ghp_...", "token=ghp_..."); one glued to letters before it is
// part of a longer word.
func keepStart(s string, start, _ int) bool { return start == 0 || !isWordByte(s[start-1]) }

// keepWord accepts a match that is a whole word.
func keepWord(s string, start, end int) bool {
	return (start == 0 || !isWordByte(s[start-1])) && (end == len(s) || !isWordByte(s[end]))
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

// findTelegram finds a bot token: 8-10 digits, ':', 35 URL-safe characters.
func findTelegram(s string, from int) (int, int, bool) {
	for {
		i := strings.IndexByte(s[from:], ':')
		if i < 0 {
			return 0, 0, false
		}
		c := from + i
		from = c + 1
		d := c
		for d > 0 && c-d < 10 && '0' <= s[d-1] && s[d-1] <= '9' {
			d--
		}
		if c-d < 8 || (d > 0 && isWordByte(s[d-1]) && !strings.HasSuffix(s[:d], "bot")) {
			continue // a token stands alone, or follows "bot" in an API URL
		}
		e := c + 1
		for e < len(s) && e-c-1 < 35 && (isWordByte(s[e]) || s[e] == '-') {
			e++
		}
		if e-c-1 == 35 {
			return d, e, true
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
