package pairing

import (
	"crypto/rand"
	"fmt"
	"io"
	"strings"
)

// Alphabet is the set of characters codes are drawn from: upper-case
// letters and digits without the look-alikes 0/O, 1/I/L.
const Alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// CodeLen is the length of a pairing code (31^8 ≈ 8.5e11 codes).
const CodeLen = 8

// NewCode draws CodeLen characters from Alphabet without modulo bias.
func NewCode(r io.Reader) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	const limit = 256 - 256%len(Alphabet) // reject bytes >= limit
	var out strings.Builder
	buf := make([]byte, 2*CodeLen)
	for out.Len() < CodeLen {
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", fmt.Errorf("pairing code: %w", err)
		}
		for _, b := range buf {
			if int(b) >= limit || out.Len() == CodeLen {
				continue
			}
			out.WriteByte(Alphabet[int(b)%len(Alphabet)])
		}
	}
	return out.String(), nil
}

// NormalizeCode upper-cases a code typed by a person and drops spaces and
// dashes, so "abcd-efgh" matches "ABCDEFGH".
func NormalizeCode(s string) string {
	s = strings.ToUpper(s)
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '\t' {
			return -1
		}
		return r
	}, s)
}
