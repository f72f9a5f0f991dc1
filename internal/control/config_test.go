package control

import "testing"

// The admin API and the console change only keys that cannot run a
// program, send a secret away or widen access; the rest is refused
// (config set on the daemon's machine edits them).
func TestRemoteKeys(t *testing.T) {
	for key, want := range map[string]bool{
		"gateway.rate_limit.requests":           true,
		"core.agents.coder.model":               true,
		"core.agentic_loop.max_tool_iterations": true,
		"core.costs.rates":                      true,
		"obs.log.level":                         true,
		"mcp.servers":                           false,
		"mcp":                                   false,
		"core.providers.openai.base_url":        false,
		"core.providers":                        false,
		"core.agents.coder":                     false,
		"core.agents.coder.autonomy_level":      false,
		"core.autonomy_level":                   false,
		"core.channel_autonomy":                 false,
		"gateway.auth.token":                    false,
		"gateway.http.addr":                     false,
		"gateway.http.allowed_hosts":            false,
		"gateway.ws.allowed_origins":            false,
		"tools.file_roots":                      false,
		"sandbox.enabled":                       false,
		"a2a.peers":                             false,
		"scheduler.webhook_allow_hosts":         false,
		"scheduler.heartbeat.deliver":           false,
		"gateway.rate_limit":                    false,
	} {
		if got := RemoteKey(key); got != want {
			t.Errorf("RemoteKey(%q) = %v, want %v", key, got, want)
		}
	}
}
