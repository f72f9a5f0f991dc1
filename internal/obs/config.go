package obs

import "github.com/beamclaw/beamclaw-go/internal/setting"

// Config is the obs section of config.yaml: logs, metrics and the event
// queue. The package owns it.
type Config struct {
	Log       LogConfig     `yaml:"log"`
	Metrics   MetricsConfig `yaml:"metrics"`
	QueueSize int           `yaml:"queue_size"`
}

// LogConfig is obs.log. An empty File logs to stderr (a detached daemon:
// the home's log file).
type LogConfig struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
	File   string `yaml:"file"`
	// MaxSizeMB rotates a log file at this size; MaxFiles rotated files
	// are kept (FILE.1 newest).
	MaxSizeMB float64 `yaml:"max_size_mb"`
	MaxFiles  int     `yaml:"max_files"`
}

// MetricsConfig is obs.metrics: the Prometheus backend and GET /metrics.
type MetricsConfig struct {
	Enabled bool `yaml:"enabled"`
}

// The values obs.log.level and obs.log.format take.
var (
	LogLevels  = []string{"debug", "info", "warn", "error"}
	LogFormats = []string{"text", "json"}
)

// DefaultQueueSize is the event bus's queue when none is configured.
const DefaultQueueSize = 1024

// DefaultConfig is the section when the file says nothing.
func DefaultConfig() Config {
	return Config{
		Log:       LogConfig{Level: "info", Format: "text", MaxSizeMB: 50, MaxFiles: 5},
		Metrics:   MetricsConfig{Enabled: true},
		QueueSize: DefaultQueueSize,
	}
}

// Validate records every problem of the section under p.
func (c Config) Validate(p *setting.Problems) {
	p.Enum("log.level", c.Log.Level, LogLevels)
	p.Enum("log.format", c.Log.Format, LogFormats)
	if c.Log.MaxSizeMB <= 0 {
		p.Add("log.max_size_mb", "must be above 0 (fractions are fine: 0.5 is 512 KiB), got %v", c.Log.MaxSizeMB)
	}
	p.Min("log.max_files", c.Log.MaxFiles, 0)
	p.Min("queue_size", c.QueueSize, 1)
}

// LogOptions is obs.log as the logger's settings.
type LogOptions struct {
	Level, Format, File string
	Rotate              RotateOptions
}

// Options is obs.log as the logger's settings.
func (l LogConfig) Options() LogOptions {
	return LogOptions{Level: l.Level, Format: l.Format, File: l.File,
		Rotate: RotateOptions{MaxSize: int64(l.MaxSizeMB * (1 << 20)), MaxFiles: l.MaxFiles}}
}
