package tool

import (
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/glob"
)

// defaultEnvAllow is what a child process inherits unless config adds
// names: the variables programs need to behave, nothing that authenticates.
var defaultEnvAllow = []string{"PATH", "HOME", "LANG", "LC_*", "TERM", "TZ", "USER", "TMPDIR"}

// secretPatterns are never passed on, whatever allow says. Matching is
// case-insensitive; '*' matches any run of characters.
var secretPatterns = []string{"*_API_KEY", "*_APIKEY", "*_TOKEN", "*_SECRET", "*SECRET*", "*PASSWORD*", "*PASSWD*", "AWS_*"}

// FilterEnv returns the entries of environ ("NAME=value") a child process
// may see: names matching the default allowlist or allow, minus any name
// matching deny or a secret pattern (*_API_KEY, *_TOKEN, *_SECRET,
// *SECRET*, *PASSWORD*, AWS_*), which win over allow. Patterns may use
// '*' as a wildcard. Order is kept; malformed entries are dropped.
func FilterEnv(environ []string, allow []string, deny []string) []string {
	out := make([]string, 0, len(defaultEnvAllow))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if !glob.Any(defaultEnvAllow, name) && !glob.Any(allow, name) {
			continue
		}
		if glob.AnyFold(secretPatterns, name) || glob.AnyFold(deny, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}
