package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// rigOptions shape the config of a chatRig.
type rigOptions struct {
	autonomy string            // core.autonomy_level ("" keeps the default)
	channels map[string]string // core.channel_autonomy entries
	// fakeName names the rig's own fake provider (default "fake");
	// providers are extra core.providers entries (name → base URL).
	fakeName        string
	providers       map[string]string
	defaultProvider string // default fakeName
	// kinds are providers' kinds (name → kind, "anthropic"); a provider
	// not named keeps the default kind (openai).
	kinds map[string]string
	// providerKeys are more members of a provider's entry (name → YAML
	// flow members, "cache_breakpoints: on").
	providerKeys map[string]string
	fallback     []string // core.fallback_providers
	extra        string   // more top-level YAML (tools:, sandbox: ...)
	gateway      string   // more lines under gateway:, indented two spaces
	http         string   // more lines under gateway.http:, indented four spaces
	core         string   // more lines under core:, indented two spaces
	// jsonLog writes the daemon's log as JSON at debug level (obs.log), so
	// the harness checks every line's keys (checkLogKeys); extra must then
	// hold no obs section.
	jsonLog bool
}

// chatRig is one daemon under test (not started until start) with the
// fake model provider it talks to.
type chatRig struct {
	t    *testing.T
	h    *home
	llm  *fakellm.Server
	hc   *http.Client
	addr string // the daemon's HTTP host:port once started
	pid  int
	// bearer is the gateway token its chat posts present ("": none).
	bearer string
}

// newChatRig makes a home whose config points the daemon at a fresh
// fakellm. The daemon is started by start, so tests can prepare the home
// (environment, workspace files) first.
func newChatRig(t *testing.T, o rigOptions) *chatRig {
	t.Helper()
	llm := fakellm.New(t)
	hc := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
	t.Cleanup(hc.CloseIdleConnections)
	r := &chatRig{t: t, llm: llm, hc: hc}
	r.h = newHome(t, rigConfig(llm.URL(), o))
	return r
}

// rigConfig renders config.yaml for a rig.
func rigConfig(fakeURL string, o rigOptions) string {
	var b strings.Builder
	if o.fakeName == "" {
		o.fakeName = "fake"
	}
	def := o.defaultProvider
	if def == "" {
		def = o.fakeName
	}
	fmt.Fprintf(&b, "core:\n  default_provider: %s\n%s", def, o.core)
	if o.autonomy != "" {
		fmt.Fprintf(&b, "  autonomy_level: %s\n", o.autonomy)
	}
	if len(o.fallback) > 0 {
		fmt.Fprintf(&b, "  fallback_providers: [%s]\n", strings.Join(o.fallback, ", "))
	}
	if len(o.channels) > 0 {
		b.WriteString("  channel_autonomy:\n")
		for _, ch := range rigSortedKeys(o.channels) {
			fmt.Fprintf(&b, "    %s: %s\n", ch, o.channels[ch])
		}
	}
	b.WriteString("  providers:\n")
	providers := map[string]string{o.fakeName: fakeURL}
	for name, url := range o.providers {
		providers[name] = url
	}
	for _, name := range rigSortedKeys(providers) {
		kind := ""
		if k := o.kinds[name]; k != "" {
			kind = "kind: " + k + ", "
		}
		more := ""
		if k := o.providerKeys[name]; k != "" {
			more = ", " + k
		}
		fmt.Fprintf(&b, "    %s: {%sbase_url: %q, model: fake-model, max_retries: 0%s}\n", name, kind, providers[name], more)
	}
	b.WriteString("gateway:\n  http:\n    addr: \"127.0.0.1:0\"\n" + o.http + o.gateway)
	b.WriteString("memory:\n  embedding:\n    enabled: false\n")
	if o.jsonLog {
		b.WriteString("obs:\n  log:\n    format: json\n    level: debug\n")
	}
	b.WriteString(o.extra)
	return b.String()
}

func rigSortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// start starts the daemon and remembers its address and pid.
func (r *chatRig) start() {
	r.t.Helper()
	s := r.h.start()
	r.addr, r.pid = s.HTTPAddr, s.PID
}

// kill9 kills the daemon with SIGKILL and waits until the pid is gone.
func (r *chatRig) kill9() {
	r.t.Helper()
	if err := syscall.Kill(r.pid, syscall.SIGKILL); err != nil {
		r.t.Fatalf("kill -9 %d: %v", r.pid, err)
	}
	pollUntil(r.t, 10*time.Second, "daemon gone after kill -9", func() bool {
		return ended(r.pid)
	})
	// A killed process is a zombie before its last thread has exited and
	// its sockets are closed: wait until the control socket refuses.
	pollUntil(r.t, 10*time.Second, "control socket closed after kill -9", func() bool {
		c, err := net.Dial("unix", filepath.Join(r.h.dir, "run", "beamclaw.sock"))
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	r.hc.CloseIdleConnections()
}

// agentFile is the path of a file of the default agent's workspace.
func (r *chatRig) agentFile(name string) string {
	return filepath.Join(r.h.dir, "agents", "default", name)
}

// chatAnswer is the part of a chat.completion response the tests read.
type chatAnswer struct {
	Choices []struct {
		Message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

// post sends a non-streamed chat completion for user (none when "") and
// returns the status and raw body.
func (r *chatRig) post(user, content string) (int, string) {
	r.t.Helper()
	return r.postTo(turnTo{user: user}, content)
}

// turnTo is where postTo sends a message: the agent ("" the default),
// the session (X-Beamclaw-Session; "" the user's own) and the user.
type turnTo struct{ agent, session, user string }

// postTo is post to an agent and a session.
func (r *chatRig) postTo(to turnTo, content string) (int, string) {
	r.t.Helper()
	model := "default"
	if to.agent != "" {
		model = "beamclaw/" + to.agent
	}
	req := map[string]any{"model": model,
		"messages": []map[string]string{{"role": "user", "content": content}}}
	if to.user != "" {
		req["user"] = to.user
	}
	body, _ := json.Marshal(req)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hr, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+r.addr+"/v1/chat/completions", bytes.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	if to.session != "" {
		hr.Header.Set("X-Beamclaw-Session", to.session)
	}
	if r.bearer != "" {
		hr.Header.Set("Authorization", "Bearer "+r.bearer)
	}
	resp, err := r.hc.Do(hr)
	if err != nil {
		r.t.Fatalf("POST /v1/chat/completions: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// answerOf is the answer text of a chat completion's raw body ("" when
// it has none).
func answerOf(body string) string {
	var a chatAnswer
	if json.Unmarshal([]byte(body), &a) != nil || len(a.Choices) != 1 {
		return ""
	}
	return a.Choices[0].Message.Content
}

// chat sends one turn and returns the answer text, failing on an error.
func (r *chatRig) chat(user, content string) string {
	r.t.Helper()
	code, body := r.post(user, content)
	if code != http.StatusOK {
		r.t.Fatalf("chat %q: %d %s", content, code, body)
	}
	var a chatAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil || len(a.Choices) != 1 {
		r.t.Fatalf("chat %q: bad completion (%v): %s", content, err, body)
	}
	return a.Choices[0].Message.Content
}

// llmToolResults returns the contents of the tool messages of a provider
// request.
func llmToolResults(req fakellm.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

// llmLast is the last chat request the fake provider received.
func llmLast(t *testing.T, llm *fakellm.Server) fakellm.Request {
	t.Helper()
	reqs := llm.Requests()
	if len(reqs) == 0 {
		t.Fatal("the provider received no request")
	}
	return reqs[len(reqs)-1]
}

// conversation is the user and assistant texts of a request, in order,
// as "role: content" lines (system and tool messages left out).
func llmConversation(req fakellm.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if (m.Role == "user" || m.Role == "assistant") && m.Content != "" {
			out = append(out, m.Role+": "+m.Content)
		}
	}
	return out
}

// pollUntil polls cond every 10 ms until it holds or timeout passes.
func pollUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// clearOfMidnight waits, when midnight UTC is less than span away, until
// it has passed, so that a test of a daily budget that takes span runs
// inside one day: past midnight its counts start again, which is right
// and would fail the test (a second warning, a request let through).
func clearOfMidnight(t *testing.T, span time.Duration) {
	t.Helper()
	now := time.Now().UTC()
	next := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
	if left := next.Sub(now); left < span {
		t.Logf("midnight UTC is %v away: waiting it out so that the daily budget's period holds the whole test", left)
		time.Sleep(left + time.Second)
	}
}

// canarySecret builds a secret-shaped string at run time: prefix followed
// by n random letters and digits.
func canarySecret(t *testing.T, prefix string, n int) string {
	t.Helper()
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		k, err := rand.Int(rand.Reader, big.NewInt(int64(len(alnum))))
		if err != nil {
			t.Fatal(err)
		}
		b[i] = alnum[k.Int64()]
	}
	return prefix + string(b)
}

// writeFile writes a test file, failing the test on error.
func putFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
