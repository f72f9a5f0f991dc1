package fakellm

import (
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"
)

const maxBody = 32 << 20

// errorBody is OpenAI's error shape.
type errorBody struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    any     `json:"code"`
	} `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	var e errorBody
	e.Error.Message = msg
	switch {
	case status == http.StatusTooManyRequests:
		e.Error.Type, e.Error.Code = "rate_limit_exceeded", "rate_limit_exceeded"
	case status == http.StatusUnauthorized:
		e.Error.Type, e.Error.Code = "invalid_request_error", "invalid_api_key"
	case status >= 500:
		e.Error.Type = "server_error"
	default:
		e.Error.Type = "invalid_request_error"
	}
	writeJSON(w, status, e)
}

func defaultErrorMessage(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return "Rate limit reached (fakellm)"
	case http.StatusUnauthorized:
		return "Incorrect API key provided (fakellm)"
	case http.StatusBadRequest:
		return "Bad request (fakellm)"
	case StatusOverloaded:
		return "Overloaded (fakellm)"
	}
	return "The server had an error while processing your request (fakellm)"
}

// errorText is a failing reply's message: its Error, else the default of
// its status.
func errorText(reply Reply) string {
	if reply.Error != "" {
		return reply.Error
	}
	return defaultErrorMessage(cmp.Or(reply.Status, reply.StreamError))
}

// preamble applies a reply's Drop, Hold (before anything) and Status. It
// reports whether the handler should go on to write a normal answer.
func (s *Server) preamble(w http.ResponseWriter, r *http.Request, reply Reply, holdNow bool) bool {
	if reply.Drop {
		panic(http.ErrAbortHandler) // net/http closes the connection silently
	}
	if holdNow && !s.hold(r, reply.Hold) {
		return false
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		if reply.RetryAfter > 0 {
			secs := int((reply.RetryAfter + time.Second - 1) / time.Second)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
		}
		if r.URL.Path == PathMessages {
			writeAnthropicError(w, reply.Status, errorText(reply))
		} else {
			writeError(w, reply.Status, errorText(reply))
		}
		return false
	}
	return true
}

// hold blocks on ch (if set) until it is closed, the client leaves or the
// server closes. It reports whether to carry on.
func (s *Server) hold(r *http.Request, ch chan struct{}) bool {
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

// pause waits d unless the client leaves or the server closes first.
func (s *Server) pause(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "read body: "+err.Error())
		return nil, false
	}
	return body, true
}

// handleModels answers GET /v1/models (a health probe costs nothing):
// recorded in AllRequests, and a reply scripted for PathModels applies
// its Status, Drop and Hold.
func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	reply, _ := s.next(Request{Path: PathModels, Header: r.Header.Clone()})
	if !s.preamble(w, r, reply, true) {
		return
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []model{
			{ID: DefaultModel, Object: "model", Created: s.created, OwnedBy: "fakellm"},
			{ID: DefaultEmbeddingModel, Object: "model", Created: s.created, OwnedBy: "fakellm"},
		},
	})
}

func (s *Server) handleScript(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var replies []Reply
	if err := json.Unmarshal(body, &replies); err != nil {
		var one Reply
		if err2 := json.Unmarshal(body, &one); err2 != nil {
			writeError(w, http.StatusBadRequest, "want a JSON list of replies: "+err.Error())
			return
		}
		replies = []Reply{one}
	}
	path := r.URL.Query().Get("path")
	if path == "" {
		path = PathChat
	}
	s.ScriptFor(path, replies...)
	writeJSON(w, http.StatusOK, map[string]int{"queued": len(replies)})
}

func (s *Server) handleRequests(w http.ResponseWriter, r *http.Request) {
	reqs := s.Requests()
	if r.URL.Query().Get("all") != "" {
		reqs = s.AllRequests()
	}
	if reqs == nil {
		reqs = []Request{}
	}
	writeJSON(w, http.StatusOK, reqs)
}

func (s *Server) handleReset(w http.ResponseWriter, _ *http.Request) {
	s.Reset()
	w.WriteHeader(http.StatusNoContent)
}
