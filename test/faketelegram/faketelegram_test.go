package faketelegram

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newBot(t *testing.T, s *Server, token string) *bot.Bot {
	t.Helper()
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 10 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	b, err := bot.New(token, bot.WithServerURL(s.URL()), bot.WithHTTPClient(5*time.Second, client))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBotAPIMethods(t *testing.T) {
	s := New(t)
	b := newBot(t, s, s.Token())
	ctx := context.Background()
	m, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: 7, Text: "<b>hi</b> &amp; bye", ParseMode: models.ParseModeHTML,
		ReplyMarkup: &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "x", CallbackData: "d"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Text != "hi & bye" {
		t.Errorf("returned text %q", m.Text)
	}
	if _, err := b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: 7, MessageID: m.ID, Text: "<b>hi</b> &amp; bye",
		ParseMode: models.ParseModeHTML}); err != nil {
		t.Fatalf("edit dropping the keyboard: %v", err)
	}
	cases := []struct {
		name string
		text string
		want string
	}{
		{"not modified", "<b>hi</b> &amp; bye", "not modified"},
		{"unclosed tag", "<b>hi", "can't parse entities"},
		{"unknown tag", "<div>hi</div>", "can't parse entities"},
		{"raw ampersand", "a & b", "can't parse entities"},
		{"too long", strings.Repeat("x", MaxMessageLen+1), "too long"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: 7, MessageID: m.ID, Text: tc.text,
				ParseMode: models.ParseModeHTML})
			if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want bad request %q", err, tc.want)
			}
		})
	}
	if got := s.Messages(7); len(got) != 1 || got[0].Edits != 1 || got[0].ReplyMarkup != "" {
		t.Errorf("messages %+v", got)
	}
	s.FailNext("sendChatAction", 1, 3)
	_, err = b.SendChatAction(ctx, &bot.SendChatActionParams{ChatID: 7, Action: models.ChatActionTyping})
	var tooMany *bot.TooManyRequestsError
	if !errors.As(err, &tooMany) || tooMany.RetryAfter != 3 {
		t.Errorf("scripted 429 = %v", err)
	}
	if n := len(s.Calls("sendChatAction")); n != 1 {
		t.Errorf("%d sendChatAction calls recorded", n)
	}
}

// TestHoldAnswer: a held send is in its chat before the bot gets its
// answer; other sends are not held.
func TestHoldAnswer(t *testing.T) {
	s := New(t)
	b := newBot(t, s, s.Token())
	ctx := context.Background()
	release := s.HoldAnswer("sendMessage", func(c Call) bool { return c.Params["text"] == "held" })
	defer release()
	got := make(chan error, 1)
	go func() {
		_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: 7, Text: "held"})
		got <- err
	}()
	if err := s.Wait(ctx, func([]Call) bool { return len(s.Messages(7)) == 1 }); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: 7, Text: "free"}); err != nil {
		t.Fatalf("a send the hold does not match: %v", err)
	}
	select {
	case err := <-got:
		t.Fatalf("the held send was answered before release (err %v)", err)
	default:
	}
	release()
	if err := <-got; err != nil {
		t.Fatalf("the held send after release: %v", err)
	}
}

func TestUpdatesAndFiles(t *testing.T) {
	s := New(t)
	b := newBot(t, s, s.Token())
	u := User{ID: 5, Username: "u"}
	s.SendText(5, u, "one")
	id, _ := s.SendPhoto(5, u, "cap", []Photo{{Width: 10, Height: 10, Data: []byte("jpeg!")}})
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan *models.Update, 4)
	b2, err := bot.New(s.Token(), bot.WithServerURL(s.URL()), bot.WithSkipGetMe(),
		bot.WithHTTPClient(3*time.Second, &http.Client{Timeout: 10 * time.Second}), bot.WithNotAsyncHandlers(),
		bot.WithDefaultHandler(func(_ context.Context, _ *bot.Bot, upd *models.Update) { got <- upd }))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { b2.Start(ctx); close(done) }()
	first, second := <-got, <-got
	cancel()
	<-done
	if first.Message.Text != "one" || second.ID != id || len(second.Message.Photo) != 1 {
		t.Fatalf("updates %+v %+v", first.Message, second.Message)
	}
	f, err := b.GetFile(context.Background(), &bot.GetFileParams{FileID: second.Message.Photo[0].FileID})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(b.FileDownloadLink(f))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	if string(data) != "jpeg!" {
		t.Errorf("file %q", data)
	}
}

func TestWrongTokenUnauthorized(t *testing.T) {
	s := New(t)
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer client.CloseIdleConnections()
	_, err := bot.New("1:wrong", bot.WithServerURL(s.URL()), bot.WithHTTPClient(time.Second, client))
	if !errors.Is(err, bot.ErrorUnauthorized) {
		t.Errorf("getMe with a wrong token = %v", err)
	}
}

func TestParseHTML(t *testing.T) {
	plain, err := ParseHTML(`<a href="https://x">l</a> <pre><code class="language-go">a &lt; b</code></pre> &#39;`)
	if err != nil || plain != "l a < b '" {
		t.Errorf("ParseHTML = %q, %v", plain, err)
	}
}

// TestGroupUpdates: a group message carries the mention and bot_command
// entities Telegram adds (UTF-16 offsets), a reply carries the bot message
// it replies to, and getChatAdministrators lists a group's creator, its
// administrators and the bot, and refuses a private chat.
func TestGroupUpdates(t *testing.T) {
	s := New(t)
	b := newBot(t, s, s.Token())
	ana := User{ID: 5, Username: "ana"}
	_, raw := s.SendText(-100, ana, "🙂 @beamclaw_test_bot /new@beamclaw_test_bot @x")
	var upd models.Update
	if err := json.Unmarshal(raw, &upd); err != nil {
		t.Fatal(err)
	}
	m := upd.Message
	want := []models.MessageEntity{
		{Type: models.MessageEntityTypeMention, Offset: 3, Length: 18},
		{Type: models.MessageEntityTypeBotCommand, Offset: 22, Length: 22},
	}
	if m.Chat.Type != models.ChatTypeGroup || !cmp.Equal(want, m.Entities) {
		t.Errorf("chat %q entities %+v, want a group and %+v", m.Chat.Type, m.Entities, want)
	}
	sent, err := b.SendMessage(context.Background(), &bot.SendMessageParams{ChatID: -100, Text: "hi all"})
	if err != nil {
		t.Fatal(err)
	}
	_, raw = s.SendReply(-100, ana, sent.ID, "thanks")
	if err := json.Unmarshal(raw, &upd); err != nil {
		t.Fatal(err)
	}
	if r := upd.Message.ReplyToMessage; r == nil || r.ID != sent.ID || r.From == nil || r.From.ID != Bot.ID || r.Text != "hi all" {
		t.Errorf("reply_to_message %+v, want the bot's message %d", r, sent.ID)
	}

	s.SetAdmins(-100, ana, User{ID: 6, Username: "bo"})
	admins, err := b.GetChatAdministrators(context.Background(), &bot.GetChatAdministratorsParams{ChatID: -100})
	if err != nil {
		t.Fatal(err)
	}
	if len(admins) != 3 || admins[0].Owner == nil || admins[0].Owner.User.ID != 5 ||
		admins[1].Administrator == nil || admins[1].Administrator.User.ID != 6 ||
		admins[2].Administrator == nil || admins[2].Administrator.User.ID != Bot.ID {
		t.Errorf("administrators %+v", admins)
	}
	if _, err := b.GetChatAdministrators(context.Background(), &bot.GetChatAdministratorsParams{ChatID: 5}); !errors.Is(err, bot.ErrorBadRequest) {
		t.Errorf("administrators of a private chat: %v, want bad request", err)
	}
}
