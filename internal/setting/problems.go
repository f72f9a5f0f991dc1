package setting

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/scrub"
)

// Error is one configuration problem, located by file, line and the dotted
// key path ("gateway.http.addr", "mcp.servers[0].name").
type Error struct {
	File string // empty when the config did not come from a file
	Line int    // 0 when unknown
	Key  string // dotted path; empty for the whole document
	Msg  string
}

// Error formats "file:line: key: message".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Problems collects every problem of a config, each under its dotted key
// path. A section's Validate receives the Problems of its own section
// (Under) and names keys relative to it. The zero value is ready to use.
type Problems struct {
	prefix string
	errs   *[]error
}

// Under returns the Problems of a part of this one: keys added there are
// prefixed with key ("sandbox", "policy.rules[2]", "[2]").
func (p *Problems) Under(key string) *Problems {
	p.init()
	return &Problems{prefix: Join(p.prefix, key), errs: p.errs}
}

func (p *Problems) init() {
	if p.errs == nil {
		p.errs = new([]error)
	}
}

// Join appends key to the dotted path (an index "[n]" without a dot).
func Join(path, key string) string {
	switch {
	case path == "":
		return key
	case key == "":
		return path
	case strings.HasPrefix(key, "["):
		return path + key
	}
	return path + "." + key
}

// Append records err as it is (decoding errors carry their own line).
func (p *Problems) Append(err error) {
	p.init()
	*p.errs = append(*p.errs, err)
}

// Add records a problem of key. Arguments that look like a credential are
// replaced, so no secret is ever echoed.
func (p *Problems) Add(key, format string, args ...any) {
	p.Append(&Error{Key: Join(p.prefix, key), Msg: Message(format, args)})
}

// Err is every problem recorded (errors.Join of *Error), or nil.
func (p *Problems) Err() error {
	if p.errs == nil {
		return nil
	}
	return errors.Join(*p.errs...)
}

// Message formats an error message, replacing any argument that looks like
// a credential so that no secret is ever echoed.
func Message(format string, args []any) string {
	for i, a := range args {
		if s, ok := a.(string); ok && scrub.LooksLikeSecret(s) {
			args[i] = "<redacted>"
		}
	}
	return fmt.Sprintf(format, args...)
}

// Enum records a problem unless v is one of allowed.
func (p *Problems) Enum(key, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		p.Add(key, "%q is not one of %s", v, strings.Join(allowed, ", "))
	}
}

// Min records a problem when v < lo.
func (p *Problems) Min(key string, v, lo int) {
	if v < lo {
		p.Add(key, "must be at least %d, got %d", lo, v)
	}
}

// Min64 records a problem when v < lo.
func (p *Problems) Min64(key string, v, lo int64) {
	if v < lo {
		p.Add(key, "must be at least %d, got %d", lo, v)
	}
}

// Between records a problem unless lo <= v <= hi.
func (p *Problems) Between(key string, v, lo, hi int) {
	if v < lo || v > hi {
		p.Add(key, "must be between %d and %d, got %d", lo, hi, v)
	}
}

// Pcts checks a <prefix>_threshold_pct / <prefix>_target_pct pair.
func (p *Problems) Pcts(prefix string, threshold, target int) {
	p.Between(prefix+"_threshold_pct", threshold, 1, 100)
	p.Between(prefix+"_target_pct", target, 1, 100)
	if target >= threshold {
		p.Add(prefix+"_target_pct", "must be below %s_threshold_pct (%d), got %d", prefix[strings.LastIndex(prefix, ".")+1:], threshold, target)
	}
}

// Hours checks an HourRange.
func (p *Problems) Hours(key string, r HourRange) {
	if r[0] < 0 || r[0] > 23 || r[1] < 1 || r[1] > 24 || r[0] == r[1] {
		p.Add(key, "must be [start, end] UTC hours with start 0-23, end 1-24 and start != end, got [%d, %d]", r[0], r[1])
	}
}

// HTTPURL checks an http(s) URL with a host; "" passes unless required.
func (p *Problems) HTTPURL(key, v string, required bool) {
	if v == "" && !required {
		return
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.Add(key, "%q is not an http(s) URL", v)
	}
}

// EnvNames checks a list of environment variable names.
func (p *Problems) EnvNames(key string, names []string) {
	for i, n := range names {
		if !IsEnvName(n) {
			p.Add(fmt.Sprintf("%s[%d]", key, i), "%q is not a valid environment variable name", n)
		}
	}
}

// MinTokenLen is the shortest bearer token accepted (gateway.auth.token,
// the A2A peers' tokens).
const MinTokenLen = 32

// Secret records a problem when the secret s is configured but its
// variable is unset in getenv's environment, or shorter than minLen.
func (p *Problems) Secret(key string, s Secret, getenv func(string) string, minLen int) {
	if s.IsZero() {
		return
	}
	v, ok := s.Resolve(getenv)
	switch {
	case !ok:
		p.Add(key, "environment variable %s is not set", s.Env)
	case len(v) < minLen:
		p.Add(key, "the value of %s is too short (at least %d characters)", s.Env, minLen)
	}
}
