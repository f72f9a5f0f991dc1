package control

import (
	"encoding/json"
	"net/http"
	"path"
	"strings"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// configShow answers the running configuration as YAML, secrets only as
// {env: VAR} (set or unset), never their values.
func (c *handlers) configShow(w http.ResponseWriter, _ *http.Request) {
	if c.config == nil {
		writeError(w, http.StatusNotFound, "this daemon shows no configuration")
		return
	}
	b, err := c.config()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(b)
}

// configSet sets (PUT, a ConfigSet) or unsets (DELETE ?key=) a key of the
// config file. The file must stay valid (a refused change writes nothing
// and says why: 400); the daemon applies it when it starts again.
func (c *handlers) configSet(w http.ResponseWriter, r *http.Request) {
	if c.editConfig == nil {
		writeError(w, http.StatusNotFound, "this daemon cannot edit its configuration")
		return
	}
	var in protocol.ConfigSet
	var value *string
	if r.Method == http.MethodPut {
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&in); err != nil {
			writeError(w, http.StatusBadRequest, "bad request body: "+err.Error())
			return
		}
		value = &in.Value
	} else {
		in.Key = r.URL.Query().Get("key")
	}
	if in.Key == "" {
		writeError(w, http.StatusBadRequest, "name the key, e.g. gateway.rate_limit.requests")
		return
	}
	if !RemoteKey(in.Key) {
		writeError(w, http.StatusForbidden, in.Key+" is changed only on the daemon's machine (beamclaw config set "+in.Key+
			" VALUE): from the API and the console only the keys of docs/configuration.md#changing-a-key, none that runs a program, sends a secret somewhere or widens access")
		return
	}
	file, err := c.editConfig(in.Key, value)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	verb := "set"
	if value == nil {
		verb = "unset"
	}
	c.log.Info("config changed through the control API", "key", in.Key, "change", verb, "file", file)
	writeJSON(w, http.StatusOK, protocol.ConfigChanged{Key: in.Key, File: file, Unset: value == nil,
		Message: in.Key + " " + verb + " in " + file + "; restart the daemon (beamclaw restart) to apply it"})
}

// remoteKeys are the keys the admin API and the console may change
// (path.Match patterns over the key with "/" for "."). Nothing here runs
// a program (MCP commands), sends a secret somewhere (URLs, headers,
// providers' settings), widens what tools or people reach (autonomy,
// roots, origins, hosts, tokens): those stay with a shell on the daemon's
// machine, which `beamclaw config set` edits directly.
var remoteKeys = []string{
	"core/default_agent", "core/default_provider", "core/fallback_providers",
	"core/agents/*/model", "core/agents/*/provider", "core/agents/*/fallback_providers", "core/agents/*/memory_scope",
	"core/agentic_loop/*", "core/costs", "core/costs/rates", "core/budgets",
	"core/session_ttl_seconds", "core/session_retention_days", "core/session_idle_hibernate_seconds",
	"core/max_live_sessions", "core/approval_timeout_seconds", "core/maintenance/*",
	"gateway/rate_limit/*", "gateway/console/session_hours",
	"scheduler/max_jobs_per_agent", "scheduler/max_jobs_per_user", "scheduler/max_errors", "scheduler/time_zone",
	"scheduler/heartbeat/default_interval_ms", "scheduler/heartbeat/suppress_ok", "scheduler/heartbeat/active_hours",
	"scheduler/heartbeat/max_tokens",
	"obs/log/level", "obs/metrics/enabled",
}

// RemoteKey reports whether the admin API and the console may change key.
func RemoteKey(key string) bool {
	k := strings.ReplaceAll(key, ".", "/")
	for _, p := range remoteKeys {
		if ok, _ := path.Match(p, k); ok {
			return true
		}
	}
	return false
}
