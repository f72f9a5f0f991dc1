// Package tui is beamclaw's terminal UI (`beamclaw tui`), built with
// Bubble Tea v2: a scrollback of the session's history, streamed answers
// (finished ones rendered as Markdown for the terminal), tool activity lines,
// approval prompts answered with one key, multi-line input, slash commands
// (/context, /new, /agent, /help, /quit) and automatic reconnection.
//
// It is a client of the daemon over the WebSocket API (pkg/client), never
// of the session layer directly. Only internal/cli imports it.
package tui
