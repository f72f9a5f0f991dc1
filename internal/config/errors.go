package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Problems flattens an error returned by this package into its individual
// *Error values (other errors are wrapped into an Error with only Msg).
func Problems(err error) []*Error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*Error
		for _, e := range j.Unwrap() {
			out = append(out, Problems(e)...)
		}
		return out
	}
	var ce *Error
	if errors.As(err, &ce) {
		return []*Error{ce}
	}
	return []*Error{{Msg: err.Error()}}
}

// problems collects every problem under its key path; config's own
// checks (names, providers, addresses) are methods of it.
type problems struct {
	setting.Problems
}

// locate fills File and Line of path-only errors from the positions
// recorded while decoding, walking up the path to the nearest known key.
func locate(err error, file string, lines map[string]int) error {
	if err == nil {
		return nil
	}
	ps := Problems(err)
	out := make([]*Error, 0, len(ps))
	for _, p := range ps {
		q := *p
		if q.File == "" {
			q.File = file
		}
		if q.Line == 0 {
			q.Line = lineOf(q.Key, lines)
		}
		out = append(out, &q)
	}
	slices.SortStableFunc(out, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	errs := make([]error, len(out))
	for i, e := range out {
		errs[i] = e
	}
	return errors.Join(errs...)
}

func lineOf(key string, lines map[string]int) int {
	for key != "" {
		if l, ok := lines[key]; ok {
			return l
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return 0
}

// suggest returns ` (did you mean "x"?)` for the closest candidate, or "".
func suggest(key string, candidates []string) string {
	best, bestDist := "", len(key)/3+2
	for _, c := range candidates {
		if d := editDistance(key, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" && len(key) >= 4 {
		for _, c := range candidates {
			if strings.HasPrefix(c, key) && (best == "" || len(c) < len(best)) {
				best = c
			}
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
