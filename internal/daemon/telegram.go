package daemon

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel/telegram"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/provider/openai"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// telegramSessions adapts the sessions API to the Telegram channel, whose
// approval buttons carry only the approval id.
type telegramSessions struct{ *sessionsAPI }

func (t telegramSessions) DecideFor(_ context.Context, userID, approvalID string, d beamclaw.Decision) error {
	return t.Manager.DecideFor(userID, approvalID, d)
}

// telegram builds the Telegram channel when it is enabled: its service,
// and the webhook route in webhook mode.
func (d *daemon) telegram(api *sessionsAPI) (suture.Service, []gateway.Mount, error) {
	tc := d.cfg.Gateway.Channels.Telegram
	if !tc.Enabled {
		return nil, nil, nil
	}
	token, _ := tc.Token.Resolve(d.env.getenv)
	secret, _ := tc.WebhookSecret.Resolve(d.env.getenv)
	policy, err := pairing.ParsePolicy(tc.DMPolicy)
	if err != nil {
		return nil, nil, err
	}
	opts := telegram.Options{
		Token: token, APIURL: tc.APIURL, Mode: tc.Mode, WebhookURL: tc.WebhookURL, WebhookSecret: secret,
		DMPolicy: policy, AllowFrom: tc.AllowFrom,
		Groups:        telegram.Groups{Enabled: tc.Groups.Enabled, Allow: tc.Groups.Allow},
		Agent:         tc.Agent,
		Photo:         telegram.Photo{Enabled: tc.Photo.Enabled, MaxSizeBytes: tc.Photo.MaxSizeBytes},
		Voice:         telegram.Voice{Enabled: tc.Voice.Enabled, MaxDurationSeconds: tc.Voice.MaxDurationSeconds},
		EditInterval:  time.Duration(tc.EditIntervalMs) * time.Millisecond,
		Autonomy:      api.ceilings[beamclaw.ChannelTelegram],
		CanonicalUser: d.env.getenv("BEAMCLAW_USER"),
		Sessions:      telegramSessions{api},
		Pairing:       pairing.New(d.db, pairing.Options{}),
		DB:            d.db,
		Logger:        d.log,
	}
	if tc.Voice.Enabled {
		key, _ := tc.Voice.STTAPIKey.Resolve(d.env.getenv)
		tr, err := openai.NewTranscriber(openai.Options{Name: "stt", BaseURL: tc.Voice.STTBaseURL, APIKey: key,
			Model: tc.Voice.STTModel, Logger: d.log})
		if err != nil {
			return nil, nil, fmt.Errorf("telegram voice transcription: %w", err)
		}
		opts.Transcriber = tr
	}
	ch, err := telegram.New(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("telegram: %w", err)
	}
	d.check("telegram", func() protocol.Subsystem {
		return protocol.Subsystem{Ready: true, Detail: tc.Mode}
	})
	var mounts []gateway.Mount
	if tc.Mode == telegram.ModeWebhook {
		mounts = append(mounts, gateway.Mount{Method: http.MethodPost, Pattern: telegram.WebhookPath,
			Handler: ch.WebhookHandler(), PublicOnly: true})
	}
	return ch, mounts, nil
}
