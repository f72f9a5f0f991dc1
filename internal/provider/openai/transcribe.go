package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// DefaultTranscriptionModel is used when Options.Model is empty.
const DefaultTranscriptionModel = "whisper-1"

// Transcriber turns audio into text with POST
// {base_url}/audio/transcriptions (Telegram voice notes, for one). It is
// safe for concurrent use.
type Transcriber struct {
	t     *transport
	model string
}

// NewTranscriber returns a Transcriber for Options.Model (default
// whisper-1).
func NewTranscriber(o Options) (*Transcriber, error) {
	t, err := newTransport(o)
	if err != nil {
		return nil, err
	}
	model := o.Model
	if model == "" {
		model = DefaultTranscriptionModel
	}
	return &Transcriber{t: t, model: model}, nil
}

// Transcribe sends audio (for example "voice.ogg", whose extension tells
// the provider the format) and returns its text. Errors carry the same
// Kinds as Client.Chat.
func (tr *Transcriber) Transcribe(ctx context.Context, audio []byte, filename string) (string, error) {
	const op = "openai.Transcribe"
	if filename == "" {
		filename = "audio.ogg"
	}
	body, contentType, err := transcriptionForm(audio, filepath.Base(filename), tr.model)
	if err != nil {
		return "", beamclaw.E(op, beamclaw.KindInternal, "", err)
	}
	ctx, cancel := provider.WithTimeout(ctx, tr.t.timeout)
	defer cancel()
	start := time.Now()
	var text string
	var status int
	err = tr.t.retry(ctx, op, func(error) bool { return true }, func(int) error {
		hreq, err := tr.t.request(ctx, "/audio/transcriptions", contentType, bytes.NewReader(body))
		if err != nil {
			return beamclaw.E(op, beamclaw.KindInternal, "", err)
		}
		res, err := tr.t.hc.Do(hreq)
		if err != nil {
			return tr.t.transportError(op, ctx, err)
		}
		defer res.Body.Close()
		status = res.StatusCode
		if res.StatusCode != http.StatusOK {
			return tr.t.statusError(op, res)
		}
		var out struct {
			Text string `json:"text"`
		}
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			return beamclaw.E(op, beamclaw.KindUnavailable, provider.KindMessage(beamclaw.KindUnavailable),
				fmt.Errorf("%s: decode transcription: %w", tr.t.name, err))
		}
		text = out.Text
		return nil
	})
	tr.t.log.LogAttrs(ctx, slog.LevelDebug, "transcription call", slog.String("provider", tr.t.name),
		slog.String("model", tr.model), slog.Int("status", status), slog.Int("bytes", len(audio)),
		slog.Duration("duration", time.Since(start)))
	return text, err
}

func transcriptionForm(audio []byte, filename, model string) ([]byte, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.WriteField("model", model); err != nil {
		return nil, "", fmt.Errorf("write form: %w", err)
	}
	if err := w.WriteField("response_format", "json"); err != nil {
		return nil, "", fmt.Errorf("write form: %w", err)
	}
	fw, err := w.CreateFormFile("file", filename)
	if err != nil {
		return nil, "", fmt.Errorf("write form: %w", err)
	}
	if _, err := fw.Write(audio); err != nil {
		return nil, "", fmt.Errorf("write form: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, "", fmt.Errorf("write form: %w", err)
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}
