package config

import (
	"slices"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

func (c *Config) validateGateway(p *problems) {
	c.Gateway.Server.Validate(p.Under("gateway"))
	validateTelegram(p, "gateway.channels.telegram", &c.Gateway.Channels.Telegram)
}

func validateTelegram(p *problems, key string, t *Telegram) {
	p.Enum(key+".mode", t.Mode, TelegramModes)
	p.Enum(key+".dm_policy", t.DMPolicy, DMPolicies)
	p.HTTPURL(key+".api_url", t.APIURL, true)
	p.name(key+".agent", t.Agent)
	p.Min(key+".edit_interval_ms", t.EditIntervalMs, 0)
	p.Min64(key+".photo.max_size_bytes", t.Photo.MaxSizeBytes, 1)
	p.Min(key+".voice.max_duration_seconds", t.Voice.MaxDurationSeconds, 1)
	p.HTTPURL(key+".voice.stt_base_url", t.Voice.STTBaseURL, t.Voice.Enabled)
	p.HTTPURL(key+".webhook_url", t.WebhookURL, false)
	if !t.Enabled {
		return
	}
	if t.Token.IsZero() {
		p.Add(key+".token", "required when the channel is enabled: write {env: TELEGRAM_BOT_TOKEN}")
	}
	if t.Mode == "webhook" {
		if !strings.HasPrefix(t.WebhookURL, "https://") {
			p.Add(key+".webhook_url", "webhook mode needs an https:// URL Telegram can reach")
		}
		if t.WebhookSecret.IsZero() {
			p.Add(key+".webhook_secret", "webhook mode needs a secret: write {env: TELEGRAM_WEBHOOK_SECRET}")
		}
	}
}

// MinTokenLen is the shortest gateway.auth.token accepted.
const MinTokenLen = setting.MinTokenLen

// ValidateRuntime checks what needs the environment, through getenv: the
// gateway token (set when configured, at least MinTokenLen characters),
// the Telegram token and webhook secret when that channel is enabled, the
// A2A peers' tokens (as long as a gateway token) when A2A is enabled. It
// runs at daemon start; `config check` may run where the variables are not
// set. It reports every problem at once.
func (c *Config) ValidateRuntime(getenv func(string) string) error {
	var p problems
	c.Gateway.Server.ValidateRuntime(p.Under("gateway"), getenv)
	if t := c.Gateway.Channels.Telegram; t.Enabled {
		p.Secret("gateway.channels.telegram.token", t.Token, getenv, 1)
		if t.Mode == "webhook" {
			p.Secret("gateway.channels.telegram.webhook_secret", t.WebhookSecret, getenv, 16)
		}
	}
	c.A2A.ValidateRuntime(p.Under("a2a"), getenv)
	return p.Err()
}

// MissingSecrets lists the dotted keys of configured secrets whose
// variables are unset, for `beamclaw doctor` warnings.
func (c *Config) MissingSecrets(getenv func(string) string) []string {
	var missing []string
	walkSecrets(c, func(key string, env string) {
		if env == "" {
			return
		}
		if getenv == nil || getenv(env) == "" {
			missing = append(missing, key)
		}
	})
	slices.Sort(missing)
	return missing
}

// SecretValues returns the resolved value of every secret the config
// references, so that the scrubber can remove them by value wherever they
// appear, whatever their shape.
func (c *Config) SecretValues(getenv func(string) string) []string {
	var out []string
	walkSecrets(c, func(_ string, env string) {
		if env == "" || getenv == nil {
			return
		}
		if v := getenv(env); v != "" {
			out = append(out, v)
		}
	})
	slices.Sort(out)
	return slices.Compact(out)
}
