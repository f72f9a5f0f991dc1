package loop

import "github.com/beamclaw/beamclaw-go/internal/setting"

// Config is core.agentic_loop: one run's bounds, compaction, and what the
// daemon hangs around a run (memory flush, auto-context, the streaming
// chunk of channels that edit). The package owns it; config checks that
// compaction_provider names a configured provider.
type Config struct {
	MaxToolIterations      int    `yaml:"max_tool_iterations"`
	MaxRepeatedToolCalls   int    `yaml:"max_repeated_tool_calls"`
	MaxToolCallsPerTurn    int    `yaml:"max_tool_calls_per_turn"`
	MaxTokensPerTurn       int    `yaml:"max_tokens_per_turn"`
	CompactionThresholdPct int    `yaml:"compaction_threshold_pct"`
	CompactionTargetPct    int    `yaml:"compaction_target_pct"`
	CompactionProvider     string `yaml:"compaction_provider"`
	CompactionModel        string `yaml:"compaction_model"`
	StreamChunkSize        int    `yaml:"stream_chunk_size"`
	MemoryFlush            bool   `yaml:"memory_flush"`
	AutoContext            bool   `yaml:"auto_context"`
	AutoContextLimit       int    `yaml:"auto_context_limit"`
}

// Defaults of the keys that are not the loop's own Options.
const (
	DefaultStreamChunkSize  = 80
	DefaultAutoContextLimit = 3
)

// DefaultConfig is the section when the file says nothing.
func DefaultConfig() Config {
	return Config{
		MaxToolIterations:      DefaultMaxToolIterations,
		MaxRepeatedToolCalls:   DefaultMaxRepeatedToolCalls,
		MaxToolCallsPerTurn:    DefaultMaxToolCallsPerTurn,
		MaxTokensPerTurn:       DefaultMaxTokensPerTurn,
		CompactionThresholdPct: DefaultCompactionThresholdPct,
		CompactionTargetPct:    DefaultCompactionTargetPct,
		StreamChunkSize:        DefaultStreamChunkSize,
		MemoryFlush:            true,
		AutoContextLimit:       DefaultAutoContextLimit,
	}
}

// Validate records every problem of the section under p.
func (c Config) Validate(p *setting.Problems) {
	p.Min("max_tool_iterations", c.MaxToolIterations, 1)
	p.Min("max_repeated_tool_calls", c.MaxRepeatedToolCalls, 1)
	p.Min("max_tool_calls_per_turn", c.MaxToolCallsPerTurn, 1)
	p.Min("max_tokens_per_turn", c.MaxTokensPerTurn, 0)
	p.Pcts("compaction", c.CompactionThresholdPct, c.CompactionTargetPct)
	p.Min("stream_chunk_size", c.StreamChunkSize, 1)
	p.Min("auto_context_limit", c.AutoContextLimit, 0)
}

// Options is the section as the loop's Options; the wiring adds the
// providers (and the compaction provider's chain), tools, policy, prompt,
// memory flush, scrubber and the rest.
func (c Config) Options() Options {
	tokens := c.MaxTokensPerTurn
	if tokens == 0 {
		tokens = -1 // the key's 0 is no cap; the Options' 0 is the default
	}
	return Options{
		CompactionModel:        c.CompactionModel,
		MaxToolIterations:      c.MaxToolIterations,
		MaxRepeatedToolCalls:   c.MaxRepeatedToolCalls,
		MaxToolCallsPerTurn:    c.MaxToolCallsPerTurn,
		MaxTokensPerTurn:       tokens,
		CompactionThresholdPct: c.CompactionThresholdPct,
		CompactionTargetPct:    c.CompactionTargetPct,
	}
}
