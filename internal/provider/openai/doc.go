// Package openai is the OpenAI-compatible LLM provider of beamclaw: one
// hand-written net/http client for api.openai.com, OpenRouter and any
// compatible base URL (Ollama, vLLM, LM Studio, ...). It streams chat
// completions over server-sent events, assembles native tool-call deltas,
// strips reasoning text (<think>...</think> and kin) from what callers see,
// maps failures to beamclaw error Kinds (which provider.Chain reads to fall
// over), and retries only before the first token. It also holds the
// Embedder (/embeddings) and the Transcriber (/audio/transcriptions).
//
// Request and response bodies are never logged; logs carry only metadata
// (provider, model, status, duration, token counts).
//
// It imports only internal/beamclaw. The daemon builds Clients from config;
// the loop, memory and channels use them through beamclaw.Provider,
// beamclaw.Embedder and small interfaces of their own.
package openai
