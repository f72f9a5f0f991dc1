package telegram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// ChannelName is the channel's name in pairing and bucket names.
const ChannelName = string(beamclaw.ChannelTelegram)

// userPrefix starts the session user id of a Telegram user ("tg:<id>").
const userPrefix = "tg"

// Modes of receiving updates.
const (
	ModeLongPoll = "long_poll"
	ModeWebhook  = "webhook"
)

// Sessions is what the channel needs of the session layer.
type Sessions interface {
	// Send hands a message to its session and returns once it is
	// persisted; the run's events then arrive on in.Route.
	Send(ctx context.Context, in beamclaw.Inbound) (runID string, err error)
	// DecideFor answers the pending approval approvalID of one of userID's
	// sessions. A KindNotFound error means it expired or was answered.
	DecideFor(ctx context.Context, userID, approvalID, origin string, d beamclaw.Decision) error
	// Answer answers the question id a tool put to userID (an MCP
	// elicitation). A KindNotFound error means it expired or was answered.
	Answer(ctx context.Context, userID, id string, a beamclaw.ElicitAnswer) error
	// SessionID, Reset and Context serve /new and /context.
	SessionID(in beamclaw.Inbound) string
	Reset(ctx context.Context, sessionID string) error
	Context(ctx context.Context, sessionID string) (used, window, messages int, err error)
}

// Transcriber turns a voice note into text.
type Transcriber interface {
	// Transcribe returns the text of audio; filename's extension tells the
	// format (openai.Transcriber, against any OpenAI-compatible
	// /audio/transcriptions endpoint).
	Transcribe(ctx context.Context, audio []byte, filename string) (string, error)
}

// Groups says in which group chats the bot answers, to which messages and
// whose.
type Groups struct {
	Enabled bool
	Allow   []string // chat ids; empty with Enabled = every group
	Trigger string   // mention (default): only messages addressed to the bot; all: every message
	Members string   // who may trigger it: admins, paired (default: the DM gate's users), anyone
}

// Values of Groups.Trigger and Groups.Members.
const (
	TriggerMention = "mention"
	TriggerAll     = "all"
	MembersAdmins  = "admins"
	MembersPaired  = "paired"
	MembersAnyone  = "anyone"
)

// Photo controls inbound images.
type Photo struct {
	Enabled      bool
	MaxSizeBytes int64 // the largest size at or under this is used (5 MiB)
}

// Voice controls inbound voice notes.
type Voice struct {
	Enabled            bool
	MaxDurationSeconds int // longer notes are refused politely (120)
}

// Options configures a Channel. Token, Sessions, Pairing and DB are
// required; the rest have defaults.
type Options struct {
	Token         string // resolved bot token; never logged
	APIURL        string // Bot API base URL (https://api.telegram.org)
	Mode          string // long_poll (default) or webhook
	WebhookURL    string // public https URL Telegram posts to (webhook mode)
	WebhookSecret string // X-Telegram-Bot-Api-Secret-Token (webhook mode)
	DMPolicy      pairing.Policy
	AllowFrom     []string // Telegram user ids or @usernames
	Groups        Groups
	Agent         string // default agent ("default")
	Photo         Photo
	Voice         Voice
	EditInterval  time.Duration // minimum time between edits of a message (1 s)
	// EditChunk is how many new characters of a streamed answer make an
	// edit worth it (core.agentic_loop.stream_chunk_size, default 80).
	EditChunk int
	// UserID is the session user of a Telegram user id: BEAMCLAW_USER
	// when set (the daemon's Host.UserID), so the owner's sessions follow
	// them across channels; by default "tg:<telegram id>".
	UserID func(telegramID string) string
	// Links serves /link (nil: linking is not offered).
	Links channel.Linker
	// STT is the OpenAI-compatible transcription endpoint for voice notes
	// (nil: voice off); the daemon's registration builds Transcriber from it.
	STT         *provider.Settings
	Transcriber Transcriber // nil: voice notes are refused
	Sessions    Sessions
	// KnownAgent reports whether an agent exists (/agent NAME); nil
	// refuses every switch.
	KnownAgent func(name string) bool
	Pairing    *pairing.Store
	DB         *store.DB // update_id de-duplication and the durable queue
	Logger     *slog.Logger
	// Clock paces the answer's edits and the typing action and waits out
	// 429s; defaults to clock.System.
	Clock clock.Clock
	// HTTPClient talks to the Bot API (a dedicated client when nil).
	HTTPClient *http.Client
	// PollTimeout is the long-poll wait of getUpdates (60 s).
	PollTimeout time.Duration
	// SeenWindow is how many update ids are remembered for de-duplication
	// (10000).
	SeenWindow int
}

// Defaults.
const (
	DefaultAPIURL       = "https://api.telegram.org"
	DefaultEditInterval = time.Second
	DefaultEditChunk    = 80
	DefaultPollTimeout  = 60 * time.Second
	DefaultSeenWindow   = 10000
	DefaultMaxPhoto     = 5 << 20
	DefaultMaxVoice     = 120
)

func (o *Options) withDefaults() {
	if o.APIURL == "" {
		o.APIURL = DefaultAPIURL
	}
	if o.Mode == "" {
		o.Mode = ModeLongPoll
	}
	if o.DMPolicy == "" {
		o.DMPolicy = pairing.PolicyPairing
	}
	if o.Agent == "" {
		o.Agent = "default"
	}
	if o.Groups.Trigger == "" {
		o.Groups.Trigger = TriggerMention
	}
	if o.Groups.Members == "" {
		o.Groups.Members = MembersPaired
	}
	if o.EditInterval <= 0 {
		o.EditInterval = DefaultEditInterval
	}
	if o.EditChunk <= 0 {
		o.EditChunk = DefaultEditChunk
	}
	if o.Photo.MaxSizeBytes <= 0 {
		o.Photo.MaxSizeBytes = DefaultMaxPhoto
	}
	if o.Voice.MaxDurationSeconds <= 0 {
		o.Voice.MaxDurationSeconds = DefaultMaxVoice
	}
	o.Clock = clock.Or(o.Clock)
	if o.PollTimeout <= 0 {
		o.PollTimeout = DefaultPollTimeout
	}
	if o.SeenWindow <= 0 {
		o.SeenWindow = DefaultSeenWindow
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

func (o *Options) validate() error {
	var errs []error
	if o.Token == "" {
		errs = append(errs, errors.New("token is required"))
	}
	if o.Sessions == nil || o.DB == nil {
		errs = append(errs, errors.New("Sessions and DB are required"))
	}
	if _, err := pairing.ParsePolicy(string(o.DMPolicy)); err != nil {
		errs = append(errs, err)
	}
	if o.DMPolicy == pairing.PolicyPairing && o.Pairing == nil {
		errs = append(errs, errors.New("dm_policy pairing needs a pairing store"))
	}
	if !slices.Contains(Triggers, o.Groups.Trigger) {
		errs = append(errs, fmt.Errorf("groups.trigger %q: want %s", o.Groups.Trigger, strings.Join(Triggers, " or ")))
	}
	if !slices.Contains(MemberRules, o.Groups.Members) {
		errs = append(errs, fmt.Errorf("groups.members %q: want %s", o.Groups.Members, strings.Join(MemberRules, ", ")))
	}
	if u, err := url.Parse(o.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		errs = append(errs, fmt.Errorf("api_url %q is not an http(s) URL", o.APIURL))
	}
	switch o.Mode {
	case ModeLongPoll:
	case ModeWebhook:
		if o.WebhookURL == "" || o.WebhookSecret == "" {
			errs = append(errs, errors.New("webhook mode needs webhook_url and webhook_secret"))
		}
	default:
		errs = append(errs, fmt.Errorf("mode %q: want long_poll or webhook", o.Mode))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("telegram options: %w", err)
	}
	return nil
}
