// Package provider holds what every LLM provider adapter shares, so that
// a second native adapter (Anthropic's Messages API, say) can be added
// next to provider/openai without importing it: Chain, the fallback over
// an ordered list of beamclaw.Providers (core.fallback_providers), and the
// table of model context windows.
//
// It imports only internal/beamclaw. The daemon builds chains from its
// configured clients; the loop asks ContextWindow for unknown models.
package provider
