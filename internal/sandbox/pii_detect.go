package sandbox

import (
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/scrub"
)

// PII kinds, as they appear in tokens (PII_<KIND>_<hex>).
const (
	KindEmail  = "EMAIL"
	KindPhone  = "PHONE"
	KindCard   = "CARD"
	KindIBAN   = "IBAN"
	KindSecret = "SECRET"
	KindCustom = "CUSTOM"
)

// pattern finds candidates of one kind; valid, when set, keeps only the
// real ones (Luhn for cards, mod-97 for IBANs, digit counts for phones).
type pattern struct {
	kind  string
	m     matcher
	valid func(string) bool
}

// matcher finds a pattern's matches: a regular expression, or one of
// scrub's credential shapes.
type matcher interface {
	FindAllStringIndex(s string, n int) [][]int
}

// builtinPatterns are compiled once per detector (no package state).
// Credential shapes are the scrubber's own (scrub.Shapes): what it
// redacts from text, the tokenizer replaces here.
func builtinPatterns() []pattern {
	var ps []pattern
	for _, sh := range scrub.Shapes() {
		ps = append(ps, pattern{KindSecret, sh, nil})
	}
	return append(ps,
		pattern{KindEmail, regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`), nil},
		pattern{KindIBAN, regexp.MustCompile(`\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b`), validIBAN},
		pattern{KindCard, regexp.MustCompile(`\b[0-9](?:[ -]?[0-9]){12,18}\b`), validCard},
		pattern{KindPhone, regexp.MustCompile(`(?:\+[0-9]{1,3}[ .-]?(?:\(?[0-9]{1,4}\)?[ .-]?){2,5}[0-9]{2,4}|\(?\b[0-9]{3}\)?[ .-][0-9]{3}[ .-][0-9]{4}\b)`), validPhone},
	)
}

// detector finds PII spans.
type detector struct{ patterns []pattern }

func newDetector(extra []string) (*detector, error) {
	d := &detector{patterns: builtinPatterns()}
	for i, expr := range extra {
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("pii pattern %d %q: %w", i, expr, err)
		}
		d.patterns = append(d.patterns, pattern{kind: KindCustom, m: re})
	}
	return d, nil
}

// span is one finding: s[start:end] of kind.
type span struct {
	start, end int
	kind       string
}

// find returns non-overlapping findings in s, leftmost first; at one
// position the longest wins, and among equals the earlier pattern.
func (d *detector) find(s string) []span {
	var all []span
	for _, p := range d.patterns {
		for _, m := range p.m.FindAllStringIndex(s, -1) {
			if m[1] == m[0] {
				continue
			}
			if p.valid != nil && !p.valid(s[m[0]:m[1]]) {
				continue
			}
			all = append(all, span{m[0], m[1], p.kind})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].start != all[j].start {
			return all[i].start < all[j].start
		}
		return all[i].end > all[j].end
	})
	var out []span
	end := 0
	for _, sp := range all {
		if sp.start < end {
			continue
		}
		out = append(out, sp)
		end = sp.end
	}
	return out
}

func digits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// validCard: 13-19 digits, a known issuer prefix, the Luhn checksum, and
// when separated, the way cards are printed (4-4-4-4, 4-6-5, 4-6-4,
// 4-4-4-4-3).
func validCard(s string) bool {
	d := digits(s)
	if len(d) < 13 || len(d) > 19 || !cardPrefix(d) || !cardGrouping(s) {
		return false
	}
	sum := 0
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if (len(d)-1-i)%2 == 1 {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return sum%10 == 0
}

func cardGrouping(s string) bool {
	groups := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' })
	if len(groups) == 1 {
		return true
	}
	shape := make([]string, len(groups))
	for i, g := range groups {
		shape[i] = strconv.Itoa(len(g))
	}
	switch strings.Join(shape, "-") {
	case "4-4-4-4", "4-6-5", "4-6-4", "4-4-4-4-3":
		return true
	}
	return false
}

// cardPrefix: Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay.
func cardPrefix(d string) bool {
	p2 := d[:2]
	p4 := d[:4]
	switch {
	case d[0] == '4':
		return true
	case p2 >= "51" && p2 <= "55", p4 >= "2221" && p4 <= "2720":
		return true
	case p2 == "34", p2 == "37", p2 == "36", p2 == "38", p2 == "62", p2 == "65":
		return true
	case p4 == "6011", p4 >= "3528" && p4 <= "3589", d[:3] >= "300" && d[:3] <= "305", d[:3] >= "644" && d[:3] <= "649":
		return true
	}
	return false
}

// validIBAN: 15-34 characters and the ISO 13616 mod-97 check.
func validIBAN(s string) bool {
	c := strings.ReplaceAll(s, " ", "")
	if len(c) < 15 || len(c) > 34 {
		return false
	}
	var num strings.Builder
	for _, r := range c[4:] + c[:4] {
		switch {
		case '0' <= r && r <= '9':
			num.WriteRune(r)
		case 'A' <= r && r <= 'Z':
			fmt.Fprintf(&num, "%d", r-'A'+10)
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(num.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// validPhone: 8 to 15 digits (E.164) once separators are dropped.
func validPhone(s string) bool {
	n := len(digits(s))
	return n >= 8 && n <= 15
}
