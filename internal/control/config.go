package control

import (
	"encoding/json"
	"net/http"

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
		writeError(w, http.StatusBadRequest, "name the key, e.g. gateway.http.addr")
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
