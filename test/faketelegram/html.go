package faketelegram

import (
	"errors"
	"fmt"
	"html"
	"regexp"
	"strings"
)

// Tags Telegram's HTML parse mode accepts.
var allowedTags = map[string]bool{
	"b": true, "strong": true, "i": true, "em": true, "u": true, "ins": true,
	"s": true, "strike": true, "del": true, "span": true, "tg-spoiler": true,
	"a": true, "code": true, "pre": true, "blockquote": true, "tg-emoji": true,
}

var entityRe = regexp.MustCompile(`^&(lt|gt|amp|quot|#[0-9]+|#x[0-9a-fA-F]+);`)

// parseHTML checks text as Telegram's parser does (known tags, properly
// nested, every '<' and '&' part of a tag or entity) and returns its plain
// text.
func parseHTML(text string) (string, error) {
	var plain strings.Builder
	var stack []string
	for i := 0; i < len(text); {
		switch text[i] {
		case '<':
			end := strings.IndexByte(text[i:], '>')
			if end < 0 {
				return "", fmt.Errorf("unclosed start tag at byte offset %d", i)
			}
			tag := text[i+1 : i+end]
			if err := applyTag(tag, &stack); err != nil {
				return "", fmt.Errorf("%w at byte offset %d", err, i)
			}
			i += end + 1
		case '&':
			m := entityRe.FindString(text[i:])
			if m == "" {
				return "", fmt.Errorf("unsupported entity at byte offset %d", i)
			}
			plain.WriteString(html.UnescapeString(m))
			i += len(m)
		case '>':
			return "", fmt.Errorf("unexpected '>' at byte offset %d", i)
		default:
			plain.WriteByte(text[i])
			i++
		}
	}
	if len(stack) > 0 {
		return "", fmt.Errorf("can't find end tag corresponding to start tag %q", stack[len(stack)-1])
	}
	return plain.String(), nil
}

func applyTag(tag string, stack *[]string) error {
	if name, ok := strings.CutPrefix(tag, "/"); ok {
		name = strings.TrimSpace(name)
		if len(*stack) == 0 || (*stack)[len(*stack)-1] != name {
			return fmt.Errorf("unmatched end tag %q", name)
		}
		*stack = (*stack)[:len(*stack)-1]
		return nil
	}
	name, attrs, _ := strings.Cut(tag, " ")
	if !allowedTags[name] {
		return fmt.Errorf("unsupported start tag %q", name)
	}
	if name == "a" && !strings.HasPrefix(strings.TrimSpace(attrs), `href="`) {
		return errors.New("a tag without href")
	}
	if strings.Contains(attrs, "<") {
		return errors.New("'<' inside a tag")
	}
	*stack = append(*stack, name)
	return nil
}

// ParseHTML checks text as Telegram's parse_mode HTML would and returns
// the text it shows, or the error Telegram would report.
func ParseHTML(text string) (string, error) { return parseHTML(text) }

// PlainText is the text Telegram shows for an HTML message (tags removed,
// entities decoded); malformed HTML comes back as is.
func PlainText(text string) string {
	plain, err := parseHTML(text)
	if err != nil {
		return text
	}
	return plain
}
