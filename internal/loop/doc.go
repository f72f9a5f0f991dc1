// Package loop runs one agentic turn ("a run") of a session: system prompt
// plus history to the LLM provider, streamed text forwarded to the run's
// reply route in coalesced chunks, tool calls parsed, checked against the
// autonomy policy, approved through the session's lane, executed, scrubbed
// and fed back, until the model answers without tools or a limit stops it.
// It compacts the history first when it nears the model's context window.
//
// The loop is stateless between runs: the session package (its only
// importer, besides tests) owns history, persistence and the approval
// allowlist and hands them in through the Lane interface.
package loop
