package control

import (
	"cmp"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// exportFormats are the ?format= of a session export and the file
// extension of each.
var exportFormats = map[string]string{"json": "json", "markdown": "md", "md": "md"}

// sessionExport answers a session as a download: its SessionDetail with
// the tool results it kept whole as JSON, or as a Markdown transcript
// (?format=markdown).
func (c *handlers) sessionExport(w http.ResponseWriter, r *http.Request) {
	if c.sessions == nil {
		writeError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	format := cmp.Or(r.URL.Query().Get("format"), "json")
	ext, ok := exportFormats[format]
	if !ok {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("format %q: want json or markdown", format))
		return
	}
	d, err := c.detailOf(sessionIDOf(r), true)
	if err != nil {
		writeError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment",
		map[string]string{"filename": exportName(d.Session.ID, ext)}))
	if ext == "json" {
		writeJSON(w, http.StatusOK, d)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	_, _ = io.WriteString(w, d.Markdown())
}

// exportName is the file name of session id's export: its id's letters,
// digits, dashes and underscores only, so that no name can climb out of
// the folder it is saved to or break the header.
func exportName(id, ext string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return -1
	}, id)
	if len(safe) > 100 {
		safe = safe[:100]
	}
	return "beamclaw-" + cmp.Or(safe, "session") + "." + ext
}

// sessionReset empties a session's history as the chat's /reset does,
// and answers the session as it is now.
func (c *handlers) sessionReset(w http.ResponseWriter, r *http.Request) {
	if c.sessions == nil {
		writeError(w, http.StatusNotFound, "this daemon keeps no sessions")
		return
	}
	id := sessionIDOf(r)
	if err := c.sessions.Reset(r.Context(), id); err != nil {
		writeError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	sum, hist, err := c.sessions.Show(id)
	if err != nil {
		writeError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, DetailWire(sum, hist))
}
