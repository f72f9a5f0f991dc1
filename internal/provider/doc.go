// Package provider holds what every LLM provider adapter shares, so that
// native adapters (provider/openai, provider/anthropic) sit side by side
// without importing each other: Config and Settings of a core.providers
// entry and the Adapter registry type; Chain, the fallback over an
// ordered list of beamclaw.Providers (core.fallback_providers); the table
// of model context windows; and what adapters share to fail alike:
// StatusError, KindForStatus (an HTTP answer's Kind), TransportError,
// RetryAfter and the Retry loop before the first token.
//
// It imports only internal/beamclaw, internal/clock and internal/setting.
// The daemon builds chains from its configured clients; the loop asks
// ContextWindow for unknown models.
package provider
