package daemon

import (
	"fmt"
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/channel/telegram"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/provider/openai"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// telegram builds the Telegram channel when it is enabled: its service,
// and the webhook route in webhook mode.
func (d *daemon) telegram(api *session.Manager, knownAgent func(string) bool) (*telegram.Channel, []gateway.Mount, error) {
	if d.plan.Telegram == nil {
		return nil, nil, nil
	}
	opts := *d.plan.Telegram
	opts.Sessions, opts.Pairing, opts.DB, opts.Logger = api, pairing.New(d.db, pairing.Options{}), d.db, d.log
	opts.KnownAgent = knownAgent
	if d.plan.STT != nil {
		tr, err := openai.NewTranscriber(openai.OptionsOf(*d.plan.STT, d.log))
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
		return protocol.Subsystem{Ready: true, Detail: opts.Mode}
	})
	var mounts []gateway.Mount
	if opts.Mode == telegram.ModeWebhook {
		mounts = append(mounts, gateway.Mount{Method: http.MethodPost, Pattern: telegram.WebhookPath,
			Handler: ch.WebhookHandler(), PublicOnly: true})
	}
	return ch, mounts, nil
}
