package telegram

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/beamclaw/beamclaw-go/internal/provider/openai"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"
	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

func allowAlice(o *Options) { o.AllowFrom = []string{"42"} }

func TestPhotoLargestUnderLimit(t *testing.T) {
	h := newHarness(t, nil, "", func(o *Options) {
		allowAlice(o)
		o.Photo.MaxSizeBytes = 500
	}).start()
	small, medium, large := bytes.Repeat([]byte{1}, 10), bytes.Repeat([]byte{2}, 400), bytes.Repeat([]byte{3}, 900)
	h.tg.SendPhoto(alice.ID, alice, "what is this?", []faketelegram.Photo{
		{Width: 90, Height: 90, Data: small}, {Width: 320, Height: 320, Data: medium}, {Width: 1280, Height: 1280, Data: large},
	})
	in := h.sess.waitSent(t, 1)[0]
	want := []beamclaw.Attachment{{MIME: "image/jpeg", Data: medium, Name: "photo.jpg"}}
	if d := cmp.Diff(want, in.Attachments); d != "" {
		t.Errorf("attachments (-want +got):\n%s", d)
	}
	if in.Content != "what is this?" {
		t.Errorf("content %q, want the caption", in.Content)
	}
}

func TestPhotoTooLarge(t *testing.T) {
	h := newHarness(t, nil, "", func(o *Options) {
		allowAlice(o)
		o.Photo.MaxSizeBytes = 5
	}).start()
	h.tg.SendPhoto(alice.ID, alice, "", []faketelegram.Photo{{Width: 90, Height: 90, Data: make([]byte, 10)}})
	h.waitMessage(alice.ID, contains("too large"))
	h.waitProcessed(1)
	if n := len(h.sess.Sent()); n != 0 {
		t.Errorf("%d sends for a refused photo", n)
	}
}

// sttServer is an OpenAI-style transcription endpoint.
// newSTT is the real transcription client the daemon hands the channel.
func newSTT(t *testing.T, o openai.Options) *openai.Transcriber {
	t.Helper()
	tr, err := openai.NewTranscriber(o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func sttServer(t *testing.T, want []byte, transcript string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" || r.Header.Get("Authorization") != "Bearer stt-key" {
			http.Error(w, "bad request line", http.StatusBadRequest)
			return
		}
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f, hdr, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		data, _ := io.ReadAll(f)
		if !bytes.Equal(data, want) || r.FormValue("model") != "whisper-test" || !strings.HasSuffix(hdr.Filename, ".ogg") {
			http.Error(w, "unexpected upload", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"text": transcript})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestVoiceTranscribed(t *testing.T) {
	audio := []byte("OggS fake opus bytes")
	stt := sttServer(t, audio, " turn on the lights ")
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(client.CloseIdleConnections)
	h := newHarness(t, nil, "", func(o *Options) {
		allowAlice(o)
		o.Transcriber = newSTT(t, openai.Options{BaseURL: stt.URL + "/v1/", APIKey: "stt-key", Model: "whisper-test",
			HTTPClient: client})
	}).start()
	h.tg.SendVoice(alice.ID, alice, 12, audio)
	in := h.sess.waitSent(t, 1)[0]
	if in.Content != "turn on the lights" || len(in.Attachments) != 0 {
		t.Errorf("inbound content %q attachments %d", in.Content, len(in.Attachments))
	}
}

func TestVoiceTooLongRefused(t *testing.T) {
	h := newHarness(t, nil, "", func(o *Options) {
		allowAlice(o)
		o.Transcriber = newSTT(t, openai.Options{BaseURL: "http://127.0.0.1:1", Model: "x"})
		o.Voice.MaxDurationSeconds = 30
	}).start()
	h.tg.SendVoice(alice.ID, alice, 31, []byte("x"))
	h.waitMessage(alice.ID, contains("up to 30 seconds"))
	h.waitProcessed(1)
	if n := len(h.sess.Sent()); n != 0 {
		t.Errorf("%d sends for a refused voice note", n)
	}
	if n := len(h.tg.Calls("getFile")); n != 0 {
		t.Errorf("downloaded a refused voice note (%d getFile)", n)
	}
}

func TestLargestPhoto(t *testing.T) {
	sizes := []struct {
		w, size int
	}{{90, 100}, {320, 1000}, {800, 5000}}
	var ps []models.PhotoSize
	for i, s := range sizes {
		ps = append(ps, models.PhotoSize{Width: s.w, Height: s.w, FileSize: s.size, FileID: fmt.Sprint("f", i)})
	}
	cases := []struct {
		name  string
		limit int64
		want  int
		ok    bool
	}{{"all fit", 10000, 800, true}, {"middle", 2000, 320, true}, {"none", 50, 0, false}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := largestPhoto(ps, tc.limit)
			if ok != tc.ok || got.Width != tc.want {
				t.Errorf("largestPhoto = %d %v, want %d %v", got.Width, ok, tc.want, tc.ok)
			}
		})
	}
}
