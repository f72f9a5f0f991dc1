// Package mcp connects beamclaw to MCP servers (stdio and streamable HTTP,
// through github.com/mark3labs/mcp-go's client) and offers their tools as
// beamclaw.Tool values. It is an adapter: it imports only the beamclaw
// vocabulary, mcp-go and suture. The daemon builds the Manager and runs
// its services; the tool registry reads it as a Source; the CLI may call
// Probe and ParseMCPServersJSON directly (`beamclaw mcp test`, `mcp import`).
//
// # Supervision
//
// Manager.Services returns one suture service per enabled server. Serve
// starts the process (stdio, in its own process group, with only HOME,
// PATH, USER, LANG and a few other variables of the daemon's environment
// plus the server's configured env) or opens the HTTP session, performs
// initialize → notifications/initialized → tools/list (following
// nextCursor) with the protocol version pinned from config, publishes the
// tools, and holds the connection: notifications/tools/list_changed
// re-lists, a periodic ping checks liveness. When the process exits or
// the transport fails, Serve returns an error and the supervisor restarts
// it; every restart rediscovers the tools from scratch. Backoff (500 ms
// doubling to 10 s) and the budget (more than 5 failures within 30 s mark
// the server failed; Serve then returns an error wrapping
// suture.ErrDoNotRestart) are the service's own, driven by Options.Clock.
// The supervisor holding these services should have a failure threshold
// high enough not to add its own backoff on top.
//
// # Authorization
//
// An HTTP server's requests go through an oauth.Transport (package
// internal/mcp/oauth): it adds the server's access token from
// Options.Tokens, kept fresh by an oauth.Source, and turns a 401 or 403
// into an *oauth.AuthError. Such a refusal is not a crash: the service
// parks the server in StateNeedsLogin (no restart, no budget charged, one
// warning naming `beamclaw mcp login NAME`) until Relogin wakes it after
// a login or logout. A server configured with a client of its own and no
// stored login starts there. A 403 insufficient_scope on a call leaves the
// server ready, fails the call with the fix, and records the scope wanted
// (ServerStatus.NeedsScope).
//
// Both clients of a server (the connection's and the token requests') go
// through an oauth.RedirectGuard: a redirect to another origin is refused,
// so the configured headers and the token stay with the server, and one
// off the configured host must pass Options.RedirectCheck (the daemon's:
// the curl tool's SSRF rule).
//
// # Elicitation
//
// beamclaw declares the elicitation capability. A server's
// elicitation/create during a tools/call is put to the beamclaw.Asker in
// that call's context (the loop sets one per run; `mcp call` its own): the
// request's context names the call on streamable HTTP, otherwise the one
// call in flight on the connection does. Without an Asker, or where the
// Asker cannot ask, the question is declined and the call's result says
// so. An accepted answer gets the schema's defaults (internal/elicit).
//
// Call runs one tool for `beamclaw mcp call` with the same checks as the
// agent's; Wait blocks until a server reaches a state.
//
// # Tools
//
// A tool is exposed as "<server>__<tool>" sanitized to
// ^[a-zA-Z0-9_-]{1,64}$ (ToolName), with the server's JSON Schema byte for
// byte, Source "mcp:<server>", risk high (medium when the server is
// trusted), at least supervised autonomy, and approval required unless
// the server is trusted. Tools of a server that is not ready disappear
// from Tools; a call in flight when its server dies fails at once with
// `mcp server "x" disconnected`.
//
// # Tool poisoning
//
// A tool is pinned at its first run (on a server that is not trusted that
// run follows the user's approval; on a trusted one it is the first use):
// the SHA-256 of its canonical definition (name, description, schema) goes
// to the PinStore. When a discovery (at start, after a restart, on
// notifications/tools/list_changed) finds a definition that differs from
// its pin, the tool is disabled: it leaves Tools, Catalog and tool_search
// (its new text never reaches a model), a call of it is refused with a
// result naming the fix, Changed(tool) and Status report it, and an
// mcp_tool_changed event is emitted once. The pin is kept, so a restart
// finds the same change. Accept (`beamclaw mcp accept SERVER TOOL`) pins
// the new definition and enables the tool; "always" approvals of the
// session stay as they were, since accepting is the owner's review.
//
// # Large tool sets
//
// When the ready servers offer more than MaxInlineTools tools, Tools
// returns only those earlier searches made inline and DeferredFor the
// rest: the tool registry's tool_search (internal/tool) ranks them with
// the agent's deferred built-in tools, lists them in the system prompt's
// "# More tools" section, and Activate makes the found ones inline for
// the calling agent (the most recent MaxInlineTools of them) from the
// next request on; Lookup finds every tool by name whether inline or not,
// so the registry may also run a searched tool directly.
package mcp
