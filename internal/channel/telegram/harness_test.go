package telegram

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

// waitLimit bounds every wait in these tests (a hang fails, it never
// measures timing).
const waitLimit = 20 * time.Second

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type decision struct {
	ID string
	D  beamclaw.Decision
}

// fakeSessions records what the channel sends and plays script for each
// message (in a goroutine the test waits for).
type fakeSessions struct {
	mu        sync.Mutex
	sent      []beamclaw.Inbound
	decisions []decision
	deciders  []string // "user origin" of each decision
	answers   []qAnswer
	decideErr error
	resets    []string
	changed   chan struct{}
	script    func(ctx context.Context, in beamclaw.Inbound)
	wg        sync.WaitGroup
	ctx       context.Context
}

func (f *fakeSessions) Send(_ context.Context, in beamclaw.Inbound) (string, error) {
	f.mu.Lock()
	f.sent = append(f.sent, in)
	close(f.changed)
	f.changed = make(chan struct{})
	script := f.script
	f.mu.Unlock()
	if script != nil {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			script(f.ctx, in)
		}()
	}
	return "run-1", nil
}

func (f *fakeSessions) DecideFor(_ context.Context, user, id, origin string, d beamclaw.Decision) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decisions = append(f.decisions, decision{id, d})
	f.deciders = append(f.deciders, user+" "+origin)
	close(f.changed)
	f.changed = make(chan struct{})
	return f.decideErr
}

type qAnswer struct {
	user, id string
	a        beamclaw.ElicitAnswer
}

func (f *fakeSessions) Answer(_ context.Context, user, id string, a beamclaw.ElicitAnswer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = append(f.answers, qAnswer{user, id, a})
	close(f.changed)
	f.changed = make(chan struct{})
	return nil
}

func (f *fakeSessions) SessionID(in beamclaw.Inbound) string {
	return "session-" + in.UserID + "-" + in.AgentID
}

func (f *fakeSessions) Reset(_ context.Context, sessionID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resets = append(f.resets, sessionID)
	return nil
}

func (f *fakeSessions) Context(context.Context, string) (used, window, messages int, err error) {
	return 1500, 8000, 4, nil
}

func (f *fakeSessions) setScript(fn func(ctx context.Context, in beamclaw.Inbound)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = fn
}

func (f *fakeSessions) setDecideErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decideErr = err
}

func (f *fakeSessions) Decisions() []decision {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]decision(nil), f.decisions...)
}

func (f *fakeSessions) Deciders() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.deciders...)
}

func (f *fakeSessions) Resets() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.resets...)
}

func (f *fakeSessions) Sent() []beamclaw.Inbound {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]beamclaw.Inbound(nil), f.sent...)
}

// waitSent waits until n messages were sent.
func (f *fakeSessions) waitSent(t *testing.T, n int) []beamclaw.Inbound {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		got, ch := append([]beamclaw.Inbound(nil), f.sent...), f.changed
		f.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("waited for %d sends, got %d", n, len(got))
		}
	}
}

type harness struct {
	t      *testing.T
	tg     *faketelegram.Server
	db     *store.DB
	pair   *pairing.Store
	sess   *fakeSessions
	ch     *Channel
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan error

	mu        sync.Mutex
	processed []int64
	procCh    chan struct{}
}

// waitProcessed waits until the channel finished n updates.
func (h *harness) waitProcessed(n int) {
	h.t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		h.mu.Lock()
		got, ch := len(h.processed), h.procCh
		h.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			h.t.Fatalf("waited for %d processed updates, got %d", n, got)
		}
	}
}

var (
	alice    = faketelegram.User{ID: 42, Username: "alice", Name: "Alice"}
	stranger = faketelegram.User{ID: 666, Username: "mallory", Name: "Mallory"}
)

// newHarness builds a channel against a fake Bot API (not started).
func newHarness(t *testing.T, tg *faketelegram.Server, dbPath string, mutate func(*Options)) *harness {
	t.Helper()
	if tg == nil {
		tg = faketelegram.New(t)
	}
	if dbPath == "" {
		dbPath = filepath.Join(t.TempDir(), "beamclaw.db")
	}
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, tg: tg, db: db, logs: &syncBuffer{},
		pair: pairing.New(db, pairing.Options{}),
		sess: &fakeSessions{changed: make(chan struct{})}}
	opts := Options{
		Token:        tg.Token(),
		APIURL:       tg.URL(),
		DMPolicy:     pairing.PolicyPairing,
		Agent:        "default",
		Photo:        Photo{Enabled: true, MaxSizeBytes: 1 << 20},
		Voice:        Voice{Enabled: true, MaxDurationSeconds: 60},
		EditInterval: time.Millisecond,
		EditChunk:    1, // every streamed piece is an edit, so tests see each one
		Sessions:     h.sess,
		Pairing:      h.pair,
		DB:           db,
		Logger:       slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		PollTimeout:  3 * time.Second,
	}
	if mutate != nil {
		mutate(&opts)
	}
	h.ch, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.procCh = make(chan struct{})
	h.ch.processed = func(id int64) {
		h.mu.Lock()
		h.processed = append(h.processed, id)
		close(h.procCh)
		h.procCh = make(chan struct{})
		h.mu.Unlock()
	}
	return h
}

// start runs Serve until the test ends (or stop is called).
func (h *harness) start() *harness {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	h.sess.ctx = ctx
	go func() { h.done <- h.ch.Serve(ctx) }()
	h.t.Cleanup(h.stop)
	return h
}

// stop ends Serve and checks the token never reached the logs.
func (h *harness) stop() {
	if h.cancel != nil {
		h.cancel()
		if err := <-h.done; err != nil {
			h.t.Errorf("Serve: %v", err)
		}
		h.cancel = nil
	}
	h.sess.wg.Wait()
	if h.db != nil {
		_ = h.db.Close()
		h.db = nil
	}
	if strings.Contains(h.logs.String(), h.tg.Token()) {
		h.t.Errorf("the bot token appears in the logs:\n%s", h.logs.String())
	}
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// waitMessage waits for a bot message in chat whose text satisfies ok.
func (h *harness) waitMessage(chat int64, ok func(faketelegram.Message) bool) faketelegram.Message {
	h.t.Helper()
	var found faketelegram.Message
	err := h.tg.Wait(waitCtx(h.t), func([]faketelegram.Call) bool {
		for _, m := range h.tg.Messages(chat) {
			if ok(m) {
				found = m
				return true
			}
		}
		return false
	})
	if err != nil {
		h.t.Fatalf("no matching message in chat %d; have %+v", chat, h.tg.Messages(chat))
	}
	return found
}

func contains(sub string) func(faketelegram.Message) bool {
	return func(m faketelegram.Message) bool { return strings.Contains(m.Text, sub) }
}

// answer is a script: stream chunks (waiting for each to be shown), then
// finish with the full text.
func answer(tg *faketelegram.Server, chat int64, chunks ...string) func(context.Context, beamclaw.Inbound) {
	return func(ctx context.Context, in beamclaw.Inbound) {
		var full string
		for _, c := range chunks {
			full += c
			in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvChunk, Text: c})
			shown := strings.TrimSpace(faketelegram.PlainText(FormatHTML(full)))
			_ = tg.Wait(ctx, func([]faketelegram.Call) bool {
				for _, m := range tg.Messages(chat) {
					if strings.TrimSpace(faketelegram.PlainText(m.Text)) == shown {
						return true
					}
				}
				return false
			})
		}
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: full})
	}
}
