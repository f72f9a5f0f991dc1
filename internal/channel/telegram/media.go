package telegram

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// maxVoiceBytes bounds a voice note download (Telegram bots may fetch at
// most 20 MB anyway).
const maxVoiceBytes = 20 << 20

// content turns a message into the text and attachments the agent sees.
// ok = false means the message was answered (or ignored) here.
func (c *Channel) content(ctx context.Context, msg *models.Message) (string, []beamclaw.Attachment, bool) {
	switch {
	case len(msg.Photo) > 0:
		return c.photo(ctx, msg)
	case msg.Voice != nil:
		text, ok := c.voice(ctx, msg)
		return text, nil, ok
	case strings.TrimSpace(msg.Text) != "":
		return msg.Text, nil, true
	case msg.Audio != nil || msg.Document != nil || msg.Video != nil || msg.Sticker != nil:
		c.reply(ctx, msg.Chat.ID, "I can read text, photos and voice notes, but not this kind of message.")
	}
	return "", nil, false
}

// largestPhoto picks the biggest size whose known byte size fits max.
func largestPhoto(sizes []models.PhotoSize, max int64) (models.PhotoSize, bool) {
	var best models.PhotoSize
	found := false
	for _, p := range sizes {
		if int64(p.FileSize) > max {
			continue
		}
		if !found || p.Width*p.Height > best.Width*best.Height {
			best, found = p, true
		}
	}
	return best, found
}

func (c *Channel) photo(ctx context.Context, msg *models.Message) (string, []beamclaw.Attachment, bool) {
	chat := msg.Chat.ID
	if !c.opts.Photo.Enabled {
		c.reply(ctx, chat, "Photos are turned off for this bot.")
		return "", nil, false
	}
	size, ok := largestPhoto(msg.Photo, c.opts.Photo.MaxSizeBytes)
	if !ok {
		c.reply(ctx, chat, fmt.Sprintf("That photo is too large (the limit is %d KB).", c.opts.Photo.MaxSizeBytes>>10))
		return "", nil, false
	}
	data, err := c.api.download(ctx, size.FileID, c.opts.Photo.MaxSizeBytes)
	if err != nil {
		c.mediaFailed(ctx, chat, "photo", err)
		return "", nil, false
	}
	att := beamclaw.Attachment{MIME: "image/jpeg", Data: data, Name: "photo.jpg"}
	return msg.Caption, []beamclaw.Attachment{att}, true
}

func (c *Channel) voice(ctx context.Context, msg *models.Message) (string, bool) {
	chat, v := msg.Chat.ID, msg.Voice
	if !c.opts.Voice.Enabled || c.opts.Transcriber == nil {
		c.reply(ctx, chat, "Voice notes are turned off for this bot; please type your message.")
		return "", false
	}
	if limit := c.opts.Voice.MaxDurationSeconds; v.Duration > limit {
		c.reply(ctx, chat, fmt.Sprintf("Sorry, that voice note is %d seconds long; I can listen to notes of up to %d seconds. Could you send a shorter one, or type it?", v.Duration, limit))
		return "", false
	}
	data, err := c.api.download(ctx, v.FileID, maxVoiceBytes)
	if err != nil {
		c.mediaFailed(ctx, chat, "voice note", err)
		return "", false
	}
	mime := v.MimeType
	if mime == "" {
		mime = "audio/ogg"
	}
	text, err := c.opts.Transcriber.Transcribe(ctx, data, "voice"+extFor(mime))
	if err != nil {
		c.log.Warn("transcribe voice note", "chat_id", chat, "err", c.red.Err(err))
		c.reply(ctx, chat, "Sorry, I could not transcribe that voice note. Please try again or type it.")
		return "", false
	}
	text = strings.TrimSpace(text)
	if text == "" {
		c.reply(ctx, chat, "I could not make out any words in that voice note.")
		return "", false
	}
	return text, true
}

func extFor(mime string) string {
	switch mime {
	case "audio/ogg", "audio/opus":
		return ".ogg"
	case "audio/mpeg":
		return ".mp3"
	case "audio/mp4", "audio/m4a":
		return ".m4a"
	case "audio/wav", "audio/x-wav":
		return ".wav"
	}
	if ext := path.Ext(strings.ReplaceAll(mime, "/", ".")); ext != "" {
		return ext
	}
	return ".ogg"
}

func (c *Channel) mediaFailed(ctx context.Context, chat int64, what string, err error) {
	if errors.Is(err, errTooLarge) {
		c.reply(ctx, chat, "That "+what+" is too large for me.")
		return
	}
	c.log.Warn("download "+what, "chat_id", chat, "err", err)
	c.reply(ctx, chat, "Sorry, I could not download that "+what+".")
}
