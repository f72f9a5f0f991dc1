package beamclaw

import (
	"context"
	"encoding/json"
)

// ChatRequest is one call to an LLM provider.
type ChatRequest struct {
	Model string
	// System is the system prompt (the agent's, or a hidden turn's
	// instruction), sent before Messages; "" for none. A system message
	// inside Messages is part of the conversation (a client's own).
	System string
	// Context is the system prompt's part that differs per user or per
	// turn (the user's own memory, recalled memory, a run's
	// instructions), sent right after System. System is then the stable
	// prefix (with Tools) that providers cache: an adapter that takes
	// explicit cache breakpoints marks its end.
	Context   string
	Messages  []Message
	Tools     []ToolDef
	MaxTokens int
	// Conversation names the conversation Messages belong to (the
	// session), "" for a one-off call. A provider may keep what its last
	// call for the conversation did (the encoding of the messages) and
	// reuse it for the messages that are the same.
	Conversation string
	// TurnStart is the index in Messages of the current turn's first
	// message: the messages before it are earlier turns, whose end an
	// adapter that takes explicit cache breakpoints marks. 0 = no earlier
	// turn.
	TurnStart int
	// Sampling holds what a client asked of the model for this turn; nil
	// leaves every control at the provider's default.
	Sampling *Sampling
}

// Sampling is the sampling and output controls a client set for one turn
// (the OpenAI-compatible API's temperature, top_p, ...). It applies to
// every model call of the turn; nil or zero fields are left unset, so the
// provider's defaults hold. The gateway validates it before a run starts.
type Sampling struct {
	Temperature       *float64
	TopP              *float64
	MaxTokens         int // the client's max_tokens / max_completion_tokens; the agent's cap still holds
	Stop              []string
	Seed              *int64
	PresencePenalty   *float64
	FrequencyPenalty  *float64
	ResponseFormat    json.RawMessage // {"type":"json_object"} or {"type":"json_schema",...}; nil = text
	ReasoningEffort   string
	ParallelToolCalls *bool
	// ToolChoice is the client's tool_choice in the chat completions wire
	// form ("auto", "none", "required" or {"type":"function",...}), sent
	// with the run's first model call only: once a tool ran the model
	// chooses freely, so "required" cannot loop.
	ToolChoice json.RawMessage
}

// MaxTokensWithin is the output cap of a call: the client's when it asked for
// less than the agent's cap (or the agent has none), else the agent's.
func (s *Sampling) MaxTokensWithin(agentCap int) int {
	if s == nil || s.MaxTokens <= 0 || (agentCap > 0 && s.MaxTokens > agentCap) {
		return agentCap
	}
	return s.MaxTokens
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

// DefaultAnswerCap is a call's max_tokens under usage budgets when it sets
// none: its reservation and the cap its answer is sent with.
const DefaultAnswerCap = 4096

// Spend is a model call about to be made, as the usage budgets see it:
// whose it is and its estimated tokens (the prompt's, and the answer's
// cap).
type Spend struct {
	Session, User, Agent, Origin string
	Provider, Model              string
	In, Out                      int
}

// Hold is a budget reservation for one model call. Model is the model to
// call instead when a budget routes down ("" = the one asked for). The
// caller ends it once: Settle with the call's usage, or Release when the
// call failed.
type Hold interface {
	Model() string
	// Warnings are what the user should hear of the budgets this call
	// fell under (one passed its warn_percent, one is spent and routes
	// down or only warns); each is said once a period.
	Warnings() []string
	Settle(u Usage, provider, model string)
	Release()
}

// Budgets reserve a model call's estimated cost against every budget that
// applies, before the call; an error of KindBudget refuses the call.
type Budgets interface {
	Reserve(ctx context.Context, s Spend) (Hold, error)
}
