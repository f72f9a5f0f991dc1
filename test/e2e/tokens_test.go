package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// TestPromptPrefixIsStable measures what a turn sends upstream with the
// default agent (the baseline issue 28 works from) and guards what makes
// providers' prefix caches work: everything before the first user message
// (the system prompt and the tool definitions) is byte-identical across a
// user's turns and across users of the agent.
func TestPromptPrefixIsStable(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.start()
	for i := range 10 {
		r.chat("t1", fmt.Sprintf("hello %d", i))
	}
	r.chat("t2", "hello")
	reqs := r.llm.Requests()
	if len(reqs) != 11 {
		t.Fatalf("the provider got %d requests, want 11", len(reqs))
	}
	var first []byte
	for i, req := range reqs {
		prefix := promptPrefix(t, req.Body)
		if i == 0 {
			first = prefix
			continue
		}
		if !bytes.Equal(prefix, first) {
			t.Errorf("request %d's prefix (%d bytes) differs from the first's (%d bytes)", i, len(prefix), len(first))
		}
	}
	t.Logf("bytes upstream: first turn %d (prefix %d), tenth turn %d, another user's first %d",
		len(reqs[0].Body), len(first), len(reqs[9].Body), len(reqs[10].Body))
}

// promptPrefix is a chat request's part before its first user message:
// its system messages and its tools, as sent.
func promptPrefix(t *testing.T, body []byte) []byte {
	t.Helper()
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    json.RawMessage   `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, m := range req.Messages {
		var role struct{ Role string }
		_ = json.Unmarshal(m, &role)
		if role.Role == "user" {
			break
		}
		out = append(out, m...)
	}
	return append(out, req.Tools...)
}
