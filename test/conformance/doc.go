// Package conformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance 0.1.16, on Node 22 from npm) against
// beamclaw's MCP client: cmd/conformance-client wraps `beamclaw mcp
// login` and `beamclaw mcp call`, and the test runs every client scenario
// beamclaw supports, failing on any failed check. .ci/run installs the
// packages into $BEAMCLAW_MCP_NPM_DIR/conformance; without them the test
// skips loudly, and fails with CI=true.
package conformance
