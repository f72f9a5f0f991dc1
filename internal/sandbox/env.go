package sandbox

import (
	"sort"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/glob"
)

// secretNamePatterns are never passed into a container, whatever the
// allowlist says (case-insensitive, '*' wildcards).
var secretNamePatterns = []string{
	"*_API_KEY", "*_APIKEY", "*_TOKEN", "*_SECRET", "*SECRET*", "*PASSWORD*", "*PASSWD*",
	"*CREDENTIAL*", "*_PRIVATE_KEY", "AWS_*", "BEAMCLAW_*", "DOCKER_*",
}

// fixedEnv is set in every run and wins over the daemon's values: the
// host's PATH and HOME mean nothing inside the image.
var fixedEnv = map[string]string{
	"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"HOME": "/tmp",
}

// minSecretLen ignores secret values too short to match safely.
const minSecretLen = 6

// FilterEnv returns the entries of environ ("NAME=value") a sandboxed run
// may see: names matching allow ('*' wildcards), minus names matching
// block or a secret-looking name (*_API_KEY, *_TOKEN, *SECRET*,
// *PASSWORD*, AWS_*, ...; case-insensitive), minus any variable whose
// value contains one of secretValues. Order is kept; malformed entries
// are dropped.
func FilterEnv(environ, allow, block, secretValues []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if !glob.Any(allow, name) {
			continue
		}
		if glob.AnyFold(block, name) || glob.AnyFold(secretNamePatterns, name) {
			continue
		}
		if containsSecret(value, secretValues) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func containsSecret(value string, secrets []string) bool {
	for _, s := range secrets {
		if len(s) >= minSecretLen && strings.Contains(value, s) {
			return true
		}
	}
	return false
}

// runEnv is the environment of every run: the filtered daemon
// environment with fixedEnv on top and LANG defaulted, sorted by name.
func runEnv(o Options) map[string]string {
	env := map[string]string{"LANG": "C.UTF-8"}
	for _, kv := range FilterEnv(o.Environ(), o.EnvAllowlist, o.EnvBlocklist, o.SecretValues) {
		name, value, _ := strings.Cut(kv, "=")
		env[name] = value
	}
	for k, v := range fixedEnv {
		env[k] = v
	}
	return env
}

// envNames lists env's names, sorted (for the posture hash).
func envNames(env map[string]string) []string {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
