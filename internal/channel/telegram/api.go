package telegram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// maxAttempts bounds retries of one call answered 429.
const maxAttempts = 4

// maxRetryAfter caps how long one 429 makes a call wait.
const maxRetryAfter = 60 * time.Second

// finalPatience is how long in all the calls that show a final answer
// wait out 429s (api.patient): the answer is what the user waits for,
// and a chat under flood control for a minute would otherwise lose it.
const finalPatience = 10 * time.Minute

// api is the Bot API as the channel uses it: every call retried after a
// 429's retry_after, every error scrubbed of the token.
type api struct {
	b        *bot.Bot
	http     *http.Client
	red      redactor
	clock    clock.Clock   // waits out 429s
	patience time.Duration // > 0: 429s are waited out for this long in all, however many
	log      *slog.Logger
}

// patient is the api whose calls wait out 429s for finalPatience, not
// maxAttempts tries.
func (a *api) patient() *api {
	p := *a
	p.patience = finalPatience
	return &p
}

// retry runs fn, waiting out 429 answers (up to maxAttempts tries, or
// the api's patience).
func (a *api) retry(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	var err error
	giveUp := a.clock.Now().Add(a.patience)
	for attempt := 1; ; attempt++ {
		err = fn(ctx)
		var tooMany *bot.TooManyRequestsError
		if !errors.As(err, &tooMany) {
			break
		}
		wait := min(time.Duration(max(tooMany.RetryAfter, 1))*time.Second, maxRetryAfter)
		if (a.patience == 0 && attempt == maxAttempts) || (a.patience > 0 && a.clock.Now().Add(wait).After(giveUp)) {
			break
		}
		a.log.Debug("telegram: rate limited, waiting", "method", what, "retry_after", wait, "err", a.red.Err(err))
		t := a.clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-t.C():
		}
	}
	if err != nil {
		return a.red.Err(fmt.Errorf("%s: %w", what, err))
	}
	return nil
}

func (a *api) sendMessage(ctx context.Context, p *bot.SendMessageParams) (*models.Message, error) {
	var m *models.Message
	err := a.retry(ctx, "sendMessage", func(ctx context.Context) (err error) {
		m, err = a.b.SendMessage(ctx, p)
		return err
	})
	return m, err
}

func (a *api) editMessageText(ctx context.Context, p *bot.EditMessageTextParams) error {
	return a.retry(ctx, "editMessageText", func(ctx context.Context) error {
		_, err := a.b.EditMessageText(ctx, p)
		return err
	})
}

func (a *api) typing(ctx context.Context, chatID int64) error {
	return a.retry(ctx, "sendChatAction", func(ctx context.Context) error {
		_, err := a.b.SendChatAction(ctx, &bot.SendChatActionParams{ChatID: chatID, Action: models.ChatActionTyping})
		return err
	})
}

func (a *api) answerCallback(ctx context.Context, id, text string) error {
	return a.retry(ctx, "answerCallbackQuery", func(ctx context.Context) error {
		_, err := a.b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: id, Text: text})
		return err
	})
}

// chatAdmins is the user ids of a group's creator and administrators.
func (a *api) chatAdmins(ctx context.Context, chat int64) ([]int64, error) {
	var ms []models.ChatMember
	err := a.retry(ctx, "getChatAdministrators", func(ctx context.Context) (err error) {
		ms, err = a.b.GetChatAdministrators(ctx, &bot.GetChatAdministratorsParams{ChatID: chat})
		return err
	})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(ms))
	for _, m := range ms {
		switch {
		case m.Owner != nil && m.Owner.User != nil:
			ids = append(ids, m.Owner.User.ID)
		case m.Administrator != nil:
			ids = append(ids, m.Administrator.User.ID)
		}
	}
	return ids, nil
}

// download fetches a file by id, refusing files over limit bytes.
func (a *api) download(ctx context.Context, fileID string, limit int64) ([]byte, error) {
	var f *models.File
	err := a.retry(ctx, "getFile", func(ctx context.Context) (err error) {
		f, err = a.b.GetFile(ctx, &bot.GetFileParams{FileID: fileID})
		return err
	})
	if err != nil {
		return nil, err
	}
	if f.FileSize > limit {
		return nil, fmt.Errorf("file of %d bytes: %w", f.FileSize, errTooLarge)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.b.FileDownloadLink(f), nil)
	if err != nil {
		return nil, a.red.Err(fmt.Errorf("download file: %w", err))
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, a.red.Err(fmt.Errorf("download file: %w", err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download file: status %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, a.red.Err(fmt.Errorf("download file: %w", err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("file over %d bytes: %w", limit, errTooLarge)
	}
	return data, nil
}

var errTooLarge = errors.New("file too large")
