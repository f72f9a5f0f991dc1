package telegram

import (
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is gateway.channels.telegram. The package owns it: defaults,
// Validate, ValidateRuntime and Options.
type Config struct {
	On             bool           `yaml:"enabled"`
	Token          setting.Secret `yaml:"token"`
	Mode           string         `yaml:"mode"`
	APIURL         string         `yaml:"api_url"`
	WebhookURL     string         `yaml:"webhook_url"`
	WebhookSecret  setting.Secret `yaml:"webhook_secret"`
	DMPolicy       string         `yaml:"dm_policy"`
	AllowFrom      []string       `yaml:"allow_from"`
	Groups         GroupsConfig   `yaml:"groups"`
	Agent          string         `yaml:"agent"`
	Photo          PhotoConfig    `yaml:"photo"`
	Voice          VoiceConfig    `yaml:"voice"`
	EditIntervalMs int            `yaml:"edit_interval_ms"`
}

// GroupsConfig lets the bot answer in listed group chats: each group is a
// session of its own, answered when addressed (trigger) by whom members
// allows.
type GroupsConfig struct {
	Enabled bool     `yaml:"enabled"`
	Allow   []string `yaml:"allow"`
	Trigger string   `yaml:"trigger"`
	Members string   `yaml:"members"`
}

// PhotoConfig controls inbound images.
type PhotoConfig struct {
	Enabled      bool  `yaml:"enabled"`
	MaxSizeBytes int64 `yaml:"max_size_bytes"`
}

// VoiceConfig controls inbound voice notes and their transcription (an
// OpenAI-compatible /audio/transcriptions endpoint).
type VoiceConfig struct {
	Enabled            bool           `yaml:"enabled"`
	MaxDurationSeconds int            `yaml:"max_duration_seconds"`
	STTBaseURL         string         `yaml:"stt_base_url"`
	STTAPIKey          setting.Secret `yaml:"stt_api_key"`
	STTModel           string         `yaml:"stt_model"`
}

// Modes, DMPolicies, Triggers and MemberRules are the values mode,
// dm_policy, groups.trigger and groups.members take.
var (
	Modes       = []string{ModeLongPoll, ModeWebhook}
	DMPolicies  = []string{string(pairing.PolicyPairing), string(pairing.PolicyAllowlist), string(pairing.PolicyOpen)}
	Triggers    = []string{TriggerMention, TriggerAll}
	MemberRules = []string{MembersAdmins, MembersPaired, MembersAnyone}
)

// DefaultConfig is the section when the file says nothing: off.
func DefaultConfig() Config {
	return Config{
		Token:         setting.Env("TELEGRAM_BOT_TOKEN"),
		Mode:          ModeLongPoll,
		APIURL:        DefaultAPIURL,
		WebhookSecret: setting.Env("TELEGRAM_WEBHOOK_SECRET"),
		DMPolicy:      string(pairing.PolicyPairing),
		AllowFrom:     []string{},
		Groups:        GroupsConfig{Allow: []string{}, Trigger: TriggerMention, Members: MembersPaired},
		Agent:         "default",
		Photo:         PhotoConfig{Enabled: true, MaxSizeBytes: DefaultMaxPhoto},
		Voice: VoiceConfig{Enabled: true, MaxDurationSeconds: DefaultMaxVoice,
			STTBaseURL: "https://api.groq.com/openai/v1", STTAPIKey: setting.Env("GROQ_API_KEY"), STTModel: "whisper-large-v3-turbo"},
		EditIntervalMs: int(DefaultEditInterval / time.Millisecond),
	}
}

// Validate records every problem of the section under p; secrets are
// checked by ValidateRuntime.
func (c Config) Validate(p *setting.Problems) {
	p.Enum("mode", c.Mode, Modes)
	p.Enum("dm_policy", c.DMPolicy, DMPolicies)
	p.Enum("groups.trigger", c.Groups.Trigger, Triggers)
	p.Enum("groups.members", c.Groups.Members, MemberRules)
	p.HTTPURL("api_url", c.APIURL, true)
	if !beamclaw.IsName(c.Agent) {
		p.Add("agent", "%q is not a valid name (1-64 of A-Z a-z 0-9 _ -)", c.Agent)
	}
	p.Min("edit_interval_ms", c.EditIntervalMs, 0)
	p.Min64("photo.max_size_bytes", c.Photo.MaxSizeBytes, 1)
	p.Min("voice.max_duration_seconds", c.Voice.MaxDurationSeconds, 1)
	p.HTTPURL("voice.stt_base_url", c.Voice.STTBaseURL, c.Voice.Enabled)
	p.HTTPURL("webhook_url", c.WebhookURL, false)
	if !c.On {
		return
	}
	if c.Token.IsZero() {
		p.Add("token", "required when the channel is enabled: write {env: TELEGRAM_BOT_TOKEN}")
	}
	if c.Mode == ModeWebhook {
		if !strings.HasPrefix(c.WebhookURL, "https://") {
			p.Add("webhook_url", "webhook mode needs an https:// URL Telegram can reach")
		}
		if c.WebhookSecret.IsZero() {
			p.Add("webhook_secret", "webhook mode needs a secret: write {env: TELEGRAM_WEBHOOK_SECRET}")
		}
	}
}

// ValidateRuntime checks, when the channel is on, that its token (and in
// webhook mode its secret) is set in getenv's environment.
func (c Config) ValidateRuntime(p *setting.Problems, getenv func(string) string) {
	if !c.On {
		return
	}
	p.Secret("token", c.Token, getenv, 1)
	if c.Mode == ModeWebhook {
		p.Secret("webhook_secret", c.WebhookSecret, getenv, 16)
	}
}

// Options is the section as the Channel's Options (secrets resolved
// through getenv); the registration adds the host's parts.
func (c Config) Options(getenv func(string) string) any {
	token, _ := c.Token.Resolve(getenv)
	secret, _ := c.WebhookSecret.Resolve(getenv)
	policy, _ := pairing.ParsePolicy(c.DMPolicy) // Validate refused any other value
	o := Options{
		Token: token, APIURL: c.APIURL, Mode: c.Mode, WebhookURL: c.WebhookURL, WebhookSecret: secret,
		DMPolicy: policy, AllowFrom: c.AllowFrom,
		Groups:       Groups(c.Groups),
		Agent:        c.Agent,
		Photo:        Photo(c.Photo),
		Voice:        Voice{Enabled: c.Voice.Enabled, MaxDurationSeconds: c.Voice.MaxDurationSeconds},
		EditInterval: time.Duration(c.EditIntervalMs) * time.Millisecond,
	}
	if c.Voice.Enabled {
		key, _ := c.Voice.STTAPIKey.Resolve(getenv)
		o.STT = &provider.Settings{Name: "stt", BaseURL: c.Voice.STTBaseURL, APIKey: key, Model: c.Voice.STTModel,
			MaxRetries: provider.DefaultMaxRetries}
	}
	return o
}
