package fakellm

import (
	"io"
	"net/http"
)

// DefaultTranscript is what an unscripted transcription returns.
const DefaultTranscript = "this is a voice note"

func (s *Server) handleTranscription(w http.ResponseWriter, r *http.Request) {
	req := Request{Path: r.URL.Path, Header: r.Header.Clone()}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	err := r.ParseMultipartForm(maxBody)
	var data []byte
	if err == nil {
		req.Model = r.FormValue("model")
		f, hdr, ferr := r.FormFile("file")
		if ferr != nil {
			err = ferr
		} else {
			req.File = hdr.Filename
			data, err = io.ReadAll(f)
			_ = f.Close()
			req.FileSize = len(data)
		}
	}
	reply, scripted := s.next(req)
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, "multipart form with a file is required: "+err.Error())
		return
	case req.Model == "":
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	if !s.preamble(w, r, reply, true) {
		return
	}
	text := reply.Text
	if !scripted {
		text = DefaultTranscript
	}
	switch r.FormValue("response_format") {
	case "text", "srt", "vtt":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, text)
	case "verbose_json":
		writeJSON(w, http.StatusOK, map[string]any{"task": "transcribe", "language": "english", "duration": 1.0, "text": text})
	default:
		writeJSON(w, http.StatusOK, map[string]any{"text": text})
	}
}
