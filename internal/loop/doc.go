// Package loop runs one agentic turn ("a run") of a session: system prompt
// plus history to the LLM provider, streamed text scrubbed and forwarded to
// the run's reply route, tool calls parsed, checked against the
// autonomy policy, approved through the session's lane, executed, scrubbed
// and fed back, until the model answers without tools or a limit stops it.
// It compacts the history first when it nears the model's context window.
// A tool finds in its context the run's Asker (questions to the user) and
// a ToolCaller: the tools it calls in turn (the sandbox's bridge) go
// through the same policy, approvals and scrubber as the model's calls.
//
// The loop is stateless between runs: the session package owns history,
// persistence and the approval allowlist and hands them in through the
// Lane interface. The daemon builds the Engine; the session drives it.
package loop
