// Package tool holds the tool registry the agent loop reads and the policy
// around running tools: JSON Schema validation of arguments, per-call
// timeouts, output caps, the view of a long output and its pages (View,
// Page, Paging: the loop pages results, tool_output reads them), panic
// recovery, the autonomy/approval decision (Decide), the key an "always"
// approval allowlists (ArgShape) and the environment filter every child
// process goes through (FilterEnv).
//
// Tools come from two places: tools registered once at start (the built-ins
// of package tool/builtin, the sandbox tool) and Sources whose tool lists
// change at run time (one per MCP server). Lookups consult both on every
// call, so a tool an MCP server drops disappears at once.
//
// Imported by the loop, the session, tool/builtin and the daemon
// (composition root). Adapters (mcp, sandbox) never import it: they
// implement beamclaw.Tool and the Source shape it declares. It imports only
// the beamclaw vocabulary and the standard library.
package tool
