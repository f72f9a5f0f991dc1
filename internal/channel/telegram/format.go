package telegram

import (
	"regexp"
	"strings"
	"sync"
)

// FormatHTML converts the Markdown an agent writes into the HTML subset
// Telegram's parse_mode HTML accepts: **bold**, *italic* and _italic_,
// ~~strike~~, `code`, fenced ``` blocks (with a language class), [links](url)
// with http(s)/mailto/tg schemes, headings as bold lines, "- " bullets and
// "> " quotes. Everything else is escaped, and the output's tags are always
// balanced, even for half-streamed input (an unclosed fence runs to the
// end; an unmatched delimiter stays literal).
func FormatHTML(md string) string {
	var out strings.Builder
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if lang, ok := fenceOpen(line); ok {
			i = writeFence(&out, lines, i+1, lang)
			continue
		}
		if strings.HasPrefix(strings.TrimLeft(line, " "), ">") {
			i = writeQuote(&out, lines, i)
			continue
		}
		writeLine(&out, line)
		if i < len(lines)-1 {
			out.WriteByte('\n')
		}
	}
	return out.String()
}

var langRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_+#.-]{1,32}$`) })

// fenceOpen reports whether line opens a fenced code block, and its language.
func fenceOpen(line string) (lang string, ok bool) {
	t := strings.TrimLeft(line, " ")
	if !strings.HasPrefix(t, "```") {
		return "", false
	}
	lang = strings.TrimSpace(strings.TrimLeft(t, "`"))
	if !langRe().MatchString(lang) {
		lang = ""
	}
	return lang, true
}

// writeFence writes a <pre> block from lines[start:] up to the closing
// fence and returns the index of the last line consumed.
func writeFence(out *strings.Builder, lines []string, start int, lang string) int {
	end := start
	for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
		end++
	}
	if lang != "" {
		out.WriteString(`<pre><code class="language-` + lang + `">`)
	} else {
		out.WriteString("<pre>")
	}
	out.WriteString(escapeText(strings.TrimRight(strings.Join(lines[start:min(end, len(lines))], "\n"), "\n")))
	if lang != "" {
		out.WriteString("</code>")
	}
	out.WriteString("</pre>")
	if end < len(lines)-1 {
		out.WriteByte('\n')
	}
	return end
}

// writeQuote merges consecutive "> " lines into one blockquote.
func writeQuote(out *strings.Builder, lines []string, i int) int {
	var body []string
	for ; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " ")
		rest, ok := strings.CutPrefix(t, ">")
		if !ok {
			break
		}
		body = append(body, strings.TrimPrefix(rest, " "))
	}
	out.WriteString("<blockquote>")
	for j, l := range body {
		if j > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(inline(l))
	}
	out.WriteString("</blockquote>")
	if i < len(lines) {
		out.WriteByte('\n')
	}
	return i - 1
}

var (
	headingRe = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	bulletRe  = regexp.MustCompile(`^(\s*)[-*+]\s+(.*)$`)
	ruleRe    = regexp.MustCompile(`^\s*(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$`)
)

func writeLine(out *strings.Builder, line string) {
	switch {
	case ruleRe.MatchString(line):
		out.WriteString("——————")
	case headingRe.MatchString(line):
		out.WriteString("<b>" + inline(headingRe.FindStringSubmatch(line)[1]) + "</b>")
	case bulletRe.MatchString(line):
		m := bulletRe.FindStringSubmatch(line)
		out.WriteString(m[1] + "• " + inline(m[2]))
	default:
		out.WriteString(inline(line))
	}
}
