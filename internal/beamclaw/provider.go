package beamclaw

import "context"

// ChatRequest is one call to an LLM provider.
type ChatRequest struct {
	Model     string
	Messages  []Message
	Tools     []ToolDef
	MaxTokens int
}

// ChatResponse is a provider's complete answer. Message is the assistant
// message with reasoning text removed and tool-call deltas assembled.
type ChatResponse struct {
	Message      Message
	Usage        Usage
	Model        string
	FinishReason string
	Provider     string // the provider that answered (after any fallback)
}

// Provider is an LLM backend. Chat streams: onText is called with each
// piece of visible text as it arrives (never with reasoning text), and the
// assembled response is returned at the end. Errors carry a Kind
// (KindRateLimited, KindUnavailable, KindTimeout, KindInvalid, ...) so that
// callers can decide on fallback.
type Provider interface {
	Name() string
	Chat(ctx context.Context, req ChatRequest, onText func(string)) (ChatResponse, error)
}

// Embedder turns texts into vectors (an OpenAI-compatible /embeddings).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
