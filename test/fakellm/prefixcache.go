package fakellm

import "encoding/json"

// OpenAI's automatic prompt caching, as the fake plays it: a prompt of at
// least cacheMinTokens reads from the cache the longest prefix it shares
// with an earlier prompt, in steps of cacheStepTokens.
const (
	cacheMinTokens  = 1024
	cacheStepTokens = 128
)

// CachePrefixes makes answers without scripted usage report prompt
// caching as OpenAI does: the prompt (tools, then messages, as OpenAI
// orders them) counts len/4 tokens, of which the prefix it shares with
// the most similar earlier prompt is usage.prompt_tokens_details.
// cached_tokens.
func (s *Server) CachePrefixes(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cachePrefixes = on
}

// cachedUsage is u with the prompt tokens and the cached tokens of req's
// prompt; it remembers the prompt for later requests.
func (s *Server) cachedUsage(req Request, u Usage) Usage {
	s.mu.Lock()
	on := s.cachePrefixes
	s.mu.Unlock()
	var body struct {
		Messages json.RawMessage `json:"messages"`
		Tools    json.RawMessage `json:"tools"`
	}
	if !on || json.Unmarshal(req.Body, &body) != nil {
		return u
	}
	prompt := append(append([]byte{}, body.Tools...), body.Messages...)
	s.mu.Lock()
	shared := 0
	for _, p := range s.prompts {
		shared = max(shared, commonPrefix(p, prompt))
	}
	s.prompts = append(s.prompts, prompt)
	s.mu.Unlock()
	u.PromptTokens = len(prompt)/4 + 1
	cached := shared / 4
	if u.PromptTokens < cacheMinTokens || cached < cacheMinTokens {
		cached = 0
	}
	cached -= cached % cacheStepTokens
	u.Details = &UsageDetails{CachedTokens: cached}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
