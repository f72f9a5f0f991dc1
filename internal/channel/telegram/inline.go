package telegram

import (
	"strings"
	"unicode"
)

// inline converts one line's inline Markdown. Each construct is emitted
// whole (opening tag, content, closing tag), so the output is balanced.
func inline(s string) string {
	var out strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if n := inlineAt(&out, rs, i); n > 0 {
			i += n
			continue
		}
		out.WriteString(escapeRune(rs[i]))
		i++
	}
	return out.String()
}

func escapeRune(r rune) string {
	switch r {
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	case '&':
		return "&amp;"
	}
	return string(r)
}

// inlineAt tries every construct at rs[i] and returns how many runes it
// consumed (0 = none matched).
func inlineAt(out *strings.Builder, rs []rune, i int) int {
	switch rs[i] {
	case '\\':
		if i+1 < len(rs) && unicode.IsPunct(rs[i+1]) || i+1 < len(rs) && unicode.IsSymbol(rs[i+1]) {
			out.WriteString(escapeRune(rs[i+1]))
			return 2
		}
	case '`':
		return codeSpan(out, rs, i)
	case '*', '_', '~':
		return emphasis(out, rs, i)
	case '[':
		return link(out, rs, i)
	}
	return 0
}

func codeSpan(out *strings.Builder, rs []rune, i int) int {
	n := run(rs, i, '`')
	for j := i + n; j < len(rs); j++ {
		if rs[j] == '`' {
			m := run(rs, j, '`')
			if m == n {
				code := strings.TrimSpace(string(rs[i+n : j]))
				if code == "" {
					return 0
				}
				out.WriteString("<code>" + escapeText(code) + "</code>")
				return j + m - i
			}
			j += m - 1
		}
	}
	return 0
}

// run counts consecutive c starting at rs[i].
func run(rs []rune, i int, c rune) int {
	n := 0
	for i+n < len(rs) && rs[i+n] == c {
		n++
	}
	return n
}

func emphasis(out *strings.Builder, rs []rune, i int) int {
	c := rs[i]
	n := run(rs, i, c)
	var width int
	var tag string
	switch {
	case c == '~' && n >= 2:
		width, tag = 2, "s"
	case c == '~':
		return 0
	case n >= 2:
		width, tag = 2, "b"
	default:
		width, tag = 1, "i"
	}
	open := i + width
	if open >= len(rs) || unicode.IsSpace(rs[open]) {
		return 0
	}
	if c == '_' && i > 0 && isWord(rs[i-1]) {
		return 0 // snake_case stays literal
	}
	end := closer(rs, open, c, width)
	if end < 0 {
		return 0
	}
	out.WriteString("<" + tag + ">" + inline(string(rs[open:end])) + "</" + tag + ">")
	return end + width - i
}

// closer finds the closing delimiter (width runes of c) after open: not
// preceded by a space, and for '_' not followed by a word character.
func closer(rs []rune, open int, c rune, width int) int {
	for j := open + 1; j+width <= len(rs); j++ {
		if rs[j] == '`' { // skip code spans inside emphasis
			if k := run(rs, j, '`'); k > 0 {
				j += k - 1
			}
			continue
		}
		if rs[j] != c || run(rs, j, c) < width || unicode.IsSpace(rs[j-1]) {
			continue
		}
		if width == 1 && j+1 < len(rs) && rs[j+1] == c {
			j++ // "**" inside single emphasis belongs to something else
			continue
		}
		if c == '_' && j+width < len(rs) && isWord(rs[j+width]) {
			continue
		}
		return j
	}
	return -1
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func link(out *strings.Builder, rs []rune, i int) int {
	closeText := indexRune(rs, i+1, ']')
	if closeText < 0 || closeText+1 >= len(rs) || rs[closeText+1] != '(' {
		return 0
	}
	closeURL := indexRune(rs, closeText+2, ')')
	if closeURL < 0 {
		return 0
	}
	text := string(rs[i+1 : closeText])
	url := strings.TrimSpace(string(rs[closeText+2 : closeURL]))
	if text == "" || !safeURL(url) {
		return 0
	}
	out.WriteString(`<a href="` + escapeAttr(url) + `">` + inline(text) + "</a>")
	return closeURL + 1 - i
}

func indexRune(rs []rune, from int, c rune) int {
	for j := from; j < len(rs); j++ {
		if rs[j] == c {
			return j
		}
	}
	return -1
}

func safeURL(u string) bool {
	l := strings.ToLower(u)
	if strings.ContainsAny(u, " \t\n<>") {
		return false
	}
	for _, p := range []string{"https://", "http://", "mailto:", "tg://"} {
		if strings.HasPrefix(l, p) && len(l) > len(p) {
			return true
		}
	}
	return false
}

var (
	textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
)

// escapeText escapes what Telegram's HTML parser treats specially in text.
func escapeText(s string) string { return textEscaper.Replace(s) }

// escapeAttr escapes an attribute value written between double quotes.
func escapeAttr(s string) string { return attrEscaper.Replace(s) }
