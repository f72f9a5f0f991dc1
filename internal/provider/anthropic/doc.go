// Package anthropic is the native Anthropic provider of beamclaw (kind
// "anthropic" of core.providers): Claude over the Messages API, through
// the official Go SDK (anthropic-sdk-go), always streamed.
//
// It maps a beamclaw.ChatRequest to Anthropic's shape: system messages
// folded into the system blocks, alternating user and assistant turns
// (tool results as tool_result blocks of a user turn, images as base64
// blocks), tools with their input schemas, the client's sampling
// controls, extended thinking for a reasoning effort; and it marks the
// two prompt-cache breakpoints a ChatRequest describes (the end of the
// stable System, the end of the previous turn). Thinking text never
// reaches onText nor the returned message; its blocks are kept per tool
// call only to hand back within the same tool loop, as the API requires.
// Failures map to beamclaw error Kinds through provider.KindForStatus and
// Anthropic's error types (529 overloaded is unavailable, with its
// retry-after); the SDK's own retries are off: the adapter retries before
// the first token (provider.Retry), and the chain falls over.
//
// Request and response bodies are never logged. It imports
// internal/beamclaw, internal/clock and internal/provider; the daemon
// registers Adapter in config.ProviderAdapters.
package anthropic
