package control

import (
	"net/http"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func (c *handlers) dbBackup(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/octet-stream")
	n, err := c.db.WriteTo(w)
	if err != nil {
		c.log.Error("database backup failed", "err", err, "bytes", n)
		if n == 0 {
			writeError(w, http.StatusInternalServerError, "backup failed: "+err.Error())
		}
		return
	}
	c.log.Info("database backed up over the control socket", "bytes", n)
}

func (c *handlers) dbCheck(w http.ResponseWriter, _ *http.Request) {
	out := protocol.DBCheck{Path: c.db.Path(), OK: true}
	if err := c.db.Check(); err != nil {
		out.OK, out.Problem = false, err.Error()
	}
	writeJSON(w, http.StatusOK, out)
}
