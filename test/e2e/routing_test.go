package e2e

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestRoutingKnowsWhy (issue 25, item 3): through the daemon, a primary
// provider answering 429 with Retry-After, 401 or 402 hands the turn to
// the backup and the primary gets no paid call while it cools down; an
// overflowing context and a content-policy refusal are not sent to the
// backup, and the user is told why. Each failure is an llm_attempt event
// naming its reason.
func TestRoutingKnowsWhy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		reply    fakellm.Reply
		kind     string // of the llm_attempt event
		fallback bool
		says     string // in the error the user gets, when there is no fallback
	}{
		{"429", fakellm.Reply{Status: 429, RetryAfter: time.Minute, Error: "slow down"}, "rate_limited", true, ""},
		{"401", fakellm.Reply{Status: 401, Error: "invalid api key"}, "unauthorized", true, ""},
		{"402", fakellm.Reply{Status: 402, Error: "insufficient credits"}, "unauthorized", true, ""},
		{"context overflow", fakellm.Reply{Status: 400, Error: "This model's maximum context length is 8192 tokens"}, "too_large", false, "context window"},
		{"content policy", fakellm.Reply{Status: 400, Error: "filtered by our content management policy"}, "forbidden", false, "content policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			backup := fakellm.New(t)
			r := newChatRig(t, rigOptions{fakeName: "primary", providers: map[string]string{"backup": backup.URL()},
				fallback: []string{"backup"}})
			r.llm.SetDefault(func(fakellm.Request) fakellm.Reply { return tc.reply })
			backup.SetDefault(fakellm.Rules)
			r.start()
			code, body := r.post("ana", "hello")
			pollUntil(t, 10*time.Second, "an llm_attempt event of kind "+tc.kind, func() bool {
				return strings.Contains(r.h.logs(), "event=llm_attempt provider=primary kind="+tc.kind)
			})
			if !tc.fallback {
				if code == http.StatusOK || !strings.Contains(body, tc.says) || len(backup.Requests()) != 0 {
					t.Errorf("%d %s; the backup was asked %d times (want 0)", code, body, len(backup.Requests()))
				}
				return
			}
			if code != http.StatusOK || len(backup.Requests()) != 1 {
				t.Fatalf("%d %s; the backup was asked %d times", code, body, len(backup.Requests()))
			}
			r.chat("bo", "hello again")
			if n := len(r.llm.Requests()); n != 1 {
				t.Errorf("the cooling primary got %d paid calls, want 1 (the first)", n)
			}
			if n := len(backup.Requests()); n != 2 {
				t.Errorf("the backup served %d calls, want 2", n)
			}
		})
	}
}

// TestRoutingTurnsToTheNextKey (issue 25, item 3): through the daemon, a
// key the primary refuses (401) gives way to the primary's next key
// (api_keys) with no paid call on the refused key while it cools down;
// once every key is refused, the next provider answers.
func TestRoutingTurnsToTheNextKey(t *testing.T) {
	const key1, key2 = "sk-e2e-first-key-0123456789abcdef", "sk-e2e-second-key-0123456789abcdef"
	backup := fakellm.New(t)
	r := newChatRig(t, rigOptions{fakeName: "primary", providers: map[string]string{"backup": backup.URL()},
		providerKeys: map[string]string{"primary": "api_key: {env: E2E_KEY_1}, api_keys: [{env: E2E_KEY_2}]"},
		fallback:     []string{"backup"}})
	r.h.env = append(r.h.env, "E2E_KEY_1="+key1, "E2E_KEY_2="+key2)
	var refused sync.Map // the keys the primary refuses
	refused.Store("Bearer "+key1, true)
	r.llm.SetDefault(func(req fakellm.Request) fakellm.Reply {
		if _, no := refused.Load(req.Header.Get("Authorization")); no {
			return fakellm.Reply{Status: 401, Error: "invalid api key"}
		}
		return fakellm.Rules(req)
	})
	backup.SetDefault(fakellm.Rules)
	r.start()
	byKey := func(key string) (n int) {
		for _, req := range r.llm.Requests() {
			if req.Header.Get("Authorization") == "Bearer "+key {
				n++
			}
		}
		return n
	}
	r.chat("ana", "hello")
	if byKey(key1) != 1 || byKey(key2) != 1 || len(backup.Requests()) != 0 {
		t.Fatalf("key 1 asked %d times, key 2 %d, the backup %d (want 1, 1, 0)", byKey(key1), byKey(key2), len(backup.Requests()))
	}
	pollUntil(t, 10*time.Second, "an llm_attempt event naming key 1", func() bool {
		return strings.Contains(r.h.logs(), "primary (key 1)")
	})
	refused.Store("Bearer "+key2, true)
	r.chat("bo", "hello again")
	if byKey(key1) != 1 || byKey(key2) != 2 || len(backup.Requests()) != 1 {
		t.Errorf("with every key refused: key 1 asked %d times (want 1: it cools down), key 2 %d (want 2), the backup %d (want 1)",
			byKey(key1), byKey(key2), len(backup.Requests()))
	}
}

// TestRoutingProbesACooledProvider (issue 25, item 3): once a 429's
// Retry-After has passed, the primary is asked GET /models (which costs
// nothing) before its next paid call, and answers again.
func TestRoutingProbesACooledProvider(t *testing.T) {
	backup := fakellm.New(t)
	r := newChatRig(t, rigOptions{fakeName: "primary", providers: map[string]string{"backup": backup.URL()},
		fallback: []string{"backup"}})
	r.llm.SetDefault(fakellm.Rules)
	r.llm.Script(fakellm.Reply{Status: 429, RetryAfter: time.Second, Error: "slow down"})
	backup.SetDefault(fakellm.Rules)
	r.start()
	r.chat("ana", "hello")
	if n := len(backup.Requests()); n != 1 {
		t.Fatalf("the backup served %d calls, want 1", n)
	}
	time.Sleep(1100 * time.Millisecond) // the cool-down began before the answer
	r.chat("bo", "hello again")
	var paths []string
	for _, req := range r.llm.AllRequests() {
		paths = append(paths, req.Path)
	}
	if want := fakellm.PathChat + "," + fakellm.PathModels + "," + fakellm.PathChat; strings.Join(paths, ",") != want {
		t.Errorf("the primary saw %v, want %s (a paid call, a probe after its cool-down, then the next paid call)", paths, want)
	}
}

// TestAgentsHaveTheirOwnChains (issue 25, item 3): through the daemon an
// agent with its own core.agents.NAME.fallback_providers falls over to
// them, while the default agent falls over to core.fallback_providers.
func TestAgentsHaveTheirOwnChains(t *testing.T) {
	backup, other := fakellm.New(t), fakellm.New(t)
	r := newChatRig(t, rigOptions{fakeName: "primary", providers: map[string]string{"backup": backup.URL(), "other": other.URL()},
		fallback: []string{"backup"}, core: "  agents:\n    coder: {fallback_providers: [other]}\n"})
	r.llm.SetDefault(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Status: 500} })
	backup.SetDefault(fakellm.Rules)
	other.SetDefault(fakellm.Rules)
	r.start()
	r.h.must("agent", "create", "coder")
	r.chat("ana", "hello")
	if code, _ := r.postRaw(t, `{"model":"beamclaw/coder","user":"ana","messages":[{"role":"user","content":"hello"}]}`, nil); code != http.StatusOK {
		t.Fatalf("chat with coder: %d", code)
	}
	if b, o := len(backup.Requests()), len(other.Requests()); b != 1 || o != 1 {
		t.Errorf("backup served %d calls, other %d; want 1 each (default's chain, then coder's own)", b, o)
	}
}
