package config

import "github.com/beamclaw/beamclaw-go/internal/setting"

// The value types of the file live in internal/setting, where the
// packages that own a section can use them; these names keep config's
// own sections readable.
type (
	// Secret is {env: VAR}: see setting.Secret.
	Secret = setting.Secret
	// EnvValue is a literal or {env: VAR}: see setting.EnvValue.
	EnvValue = setting.EnvValue
	// Duration is a duration string: see setting.Duration.
	Duration = setting.Duration
	// HourRange is [start, end) in UTC hours: see setting.HourRange.
	HourRange = setting.HourRange
	// Error is one located problem: see setting.Error.
	Error = setting.Error
)

// Env returns a Secret read from the environment variable name.
func Env(name string) Secret { return setting.Env(name) }
