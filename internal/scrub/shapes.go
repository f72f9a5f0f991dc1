package scrub

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Shape is one credential format: a provider's API keys, a JWT, a PEM
// private key, a Telegram bot token. The table of them (Shapes) is the
// one definition of what a credential looks like: the scrubber redacts
// every shape, LooksLikeSecret reports it, a Stream holds back a word
// that may grow into one of its prefixes, and the sandbox's PII
// tokenizer replaces it. A new key format is a new row of the table.
type Shape struct {
	Name string // which credential ("github", "jwt")
	// prefixes are the literal beginnings of every match; none for a
	// shape known by its structure (a Telegram bot token).
	prefixes []string
	find     finder
}

// finder returns the next secret at or after from as s[start:end]; it
// must be cheap and allocation-free when there is none, because String
// calls every rule's finder on every text.
type finder = func(s string, from int) (start, end int, ok bool)

// shapes is the table, built on first use (it compiles regular
// expressions). The scrubber applies it in this order: shapes that cover
// larger regions (PEM blocks, JWTs) come first so that a smaller one
// cannot cut them in half.
var shapes = sync.OnceValue(func() []Shape {
	return []Shape{
		reShape("pem_private_key", []string{"-----BEGIN"}, `-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`+
			`(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`+
			`|(?:\s*(?:[A-Za-z0-9+/=]{16,}|[A-Za-z-]+:[^\n]*))*)`, nil),
		reShape("jwt", []string{"eyJ"}, `eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`, keepStart),
		keyShape("openai_anthropic_openrouter", token{[]string{"sk-"}, urlSafe, 16, 0, keepSK}),
		keyShape("groq", token{[]string{"gsk_"}, alnum, 16, 0, keepStart}),
		keyShape("github", token{[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, alnum, 16, 0, keepStart}),
		keyShape("github_fine_grained", token{[]string{"github_pat_"}, word, 20, 0, keepStart}),
		keyShape("slack", token{[]string{"xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xapp-"}, alnumDash, 10, 0, keepStart}),
		keyShape("aws_key_id", token{[]string{"AKIA", "ASIA"}, upperDigit, 16, 16, keepWord}),
		keyShape("google", token{[]string{"AIza"}, urlSafe, 35, 35, keepStart}),
		keyShape("google_oauth", token{[]string{"ya29."}, urlSafeDot, 20, 0, keepStart}),
		keyShape("gitlab", token{[]string{"glpat-"}, urlSafe, 20, 0, keepStart}),
		keyShape("stripe", token{[]string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"}, alnum, 16, 0, keepStart}),
		{Name: "telegram_bot", find: findTelegram},
	}
})

// Shapes returns the table of credential shapes.
func Shapes() []Shape { return slices.Clone(shapes()) }

// FindAllStringIndex returns the spans of s that have this shape, leftmost
// first and not overlapping; n < 0 means all of them, as in the regexp
// method of the same name.
func (sh Shape) FindAllStringIndex(s string, n int) [][]int {
	var out [][]int
	for from := 0; from < len(s) && (n < 0 || len(out) < n); {
		start, end, ok := sh.find(s, from)
		if !ok {
			break
		}
		out = append(out, []int{start, end})
		from = max(end, start+1)
	}
	return out
}

// keyShape is the shape of keys that t finds.
func keyShape(name string, t token) Shape {
	return Shape{Name: name, prefixes: t.prefixes, find: t.find}
}

// reShape is the shape of the matches of expr, each of which contains
// one of lits; keep, when set, rejects matches that only look like
// secrets.
func reShape(name string, lits []string, expr string, keep func(s string, start, end int) bool) Shape {
	return Shape{Name: name, prefixes: lits, find: reFind(lits, expr, keep)}
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
func reFind(lits []string, expr string, keep func(s string, start, end int) bool) finder {
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
