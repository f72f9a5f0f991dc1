// Package faketelegram is a fake of the Telegram Bot API for tests: a real
// HTTP server on 127.0.0.1 that answers /bot<TOKEN>/<method> the way
// api.telegram.org does (multipart/form-data, url-encoded and JSON bodies,
// {"ok":...} envelopes, error_code and retry_after) and serves files at
// /file/bot<TOKEN>/<path>.
//
// It implements getMe, getUpdates (long poll with timeout and offsets),
// setWebhook, deleteWebhook, getWebhookInfo, sendMessage, editMessageText,
// sendChatAction, answerCallbackQuery, getFile and getChatAdministrators;
// it checks parse_mode HTML text the way Telegram does (known tags,
// balanced, valid entities, at most 4096 characters). A test injects
// updates (text with the mention and bot_command entities Telegram adds,
// replies, photo, voice, callback query) in private chats and groups (a
// negative chat id), sets a group's administrators, scripts 429 answers
// with FailNext, and inspects every call with Calls and Wait.
//
// Only tests and test helpers import this package.
package faketelegram

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultToken is the token New uses.
const DefaultToken = "123456789:AAFakeTokenForTestsOnly_abcdefghijklmn"

// Call is one request the server received.
type Call struct {
	Method string
	Params map[string]string // form fields; JSON bodies flattened the same way
	Time   time.Time
}

// Server is a running fake. All methods are safe for concurrent use.
type Server struct {
	hs    *httptest.Server
	token string

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every change
	calls     []Call
	updates   []update
	nextUpd   int64
	confirmed int64 // highest update id a getUpdates offset confirmed
	chats     map[int64]*chat
	admins    map[int64][]User // by group chat id (SetAdmins)
	files     map[string]file  // by file_id
	failures  map[string][]failure
	holds     []hold
	webhook   webhook
	nextFile  int
	nextCBQ   int
	closed    bool
}

type webhook struct {
	URL    string
	Secret string
}

// hold keeps the answer to one call back until released.
type hold struct {
	method  string
	match   func(Call) bool
	release chan struct{}
}

type failure struct {
	code       int
	retryAfter int
	desc       string
}

// New starts a server with DefaultToken for one test and closes it when
// the test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := Start(DefaultToken)
	tb.Cleanup(s.Close)
	return s
}

// Start starts a server that accepts token. Call Close when done.
func Start(token string) *Server {
	s := &Server{
		token:    token,
		changed:  make(chan struct{}),
		chats:    map[int64]*chat{},
		files:    map[string]file{},
		failures: map[string][]failure{},
		nextUpd:  1000,
	}
	s.hs = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	return s
}

// URL is the server's base URL, for bot.WithServerURL.
func (s *Server) URL() string { return s.hs.URL }

// Token is the token the server accepts.
func (s *Server) Token() string { return s.token }

// Close stops the server; pending long polls return at once.
func (s *Server) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		s.notifyLocked()
	}
	s.mu.Unlock()
	s.hs.CloseClientConnections()
	s.hs.Close()
}

// notifyLocked wakes every waiter. s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		s.serveFile(w, rest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", 0)
		return
	}
	token, method, ok := strings.Cut(rest, "/")
	if !ok || token != s.token {
		writeError(w, http.StatusUnauthorized, "Unauthorized", 0)
		return
	}
	params, err := parseParams(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "Bad Request: "+err.Error(), 0)
		return
	}
	s.record(Call{Method: method, Params: params, Time: time.Now()})
	if f, ok := s.takeFailure(method); ok {
		writeError(w, f.code, f.desc, f.retryAfter)
		return
	}
	h, ok := s.handler(method)
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found: method not found", 0)
		return
	}
	result, apiErr := h(r.Context(), params)
	if apiErr != nil {
		writeError(w, apiErr.code, apiErr.desc, 0)
		return
	}
	if release := s.takeHold(Call{Method: method, Params: params}); release != nil {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
	}
	writeResult(w, result)
}

// HoldAnswer makes the next call of method that match accepts take
// effect at once (a sent message is in its chat, where a user can press
// its buttons) while its answer waits until release is called: the bot
// learns what it did only then, as when Telegram's answer is slow.
// release may be called more than once.
func (s *Server) HoldAnswer(method string, match func(Call) bool) (release func()) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.holds = append(s.holds, hold{method: method, match: match, release: ch})
	s.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

func (s *Server) takeHold(c Call) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, h := range s.holds {
		if h.method == c.Method && h.match(c) {
			s.holds = append(s.holds[:i], s.holds[i+1:]...)
			return h.release
		}
	}
	return nil
}

func (s *Server) record(c Call) {
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.notifyLocked()
	s.mu.Unlock()
}

// FailNext makes the next n calls of method fail with 429 Too Many
// Requests and parameters.retry_after = retryAfter seconds.
func (s *Server) FailNext(method string, n, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures[method] = append(s.failures[method], failure{
			code: http.StatusTooManyRequests, retryAfter: retryAfter,
			desc: fmt.Sprintf("Too Many Requests: retry after %d", retryAfter),
		})
	}
}

func (s *Server) takeFailure(method string) (failure, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.failures[method]
	if len(q) == 0 {
		return failure{}, false
	}
	s.failures[method] = q[1:]
	return q[0], true
}

// Calls returns the recorded calls, of the given methods only when any
// are named, in arrival order.
func (s *Server) Calls(methods ...string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if len(methods) == 0 || contains(methods, c.Method) {
			out = append(out, c)
		}
	}
	return out
}

// Wait blocks until cond holds for the server's calls, or ctx ends. cond
// runs without the server's lock, after every change (calls, updates,
// message edits).
func (s *Server) Wait(ctx context.Context, cond func(calls []Call) bool) error {
	for {
		s.mu.Lock()
		calls, ch := append([]Call(nil), s.calls...), s.changed
		s.mu.Unlock()
		if cond(calls) { // cond may call the server's other methods
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("faketelegram wait: %w", ctx.Err())
		}
	}
}

// WaitCall waits for a call of method for which match (nil = any) holds
// and returns the first such call.
func (s *Server) WaitCall(ctx context.Context, method string, match func(Call) bool) (Call, error) {
	var found Call
	err := s.Wait(ctx, func(calls []Call) bool {
		for _, c := range calls {
			if c.Method == method && (match == nil || match(c)) {
				found = c
				return true
			}
		}
		return false
	})
	return found, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type apiError struct {
	code int
	desc string
}

func writeResult(w http.ResponseWriter, result any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

func writeError(w http.ResponseWriter, code int, desc string, retryAfter int) {
	body := map[string]any{"ok": false, "error_code": code, "description": desc}
	if retryAfter > 0 {
		body["parameters"] = map[string]any{"retry_after": retryAfter}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}
