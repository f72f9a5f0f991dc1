package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/session"
)

// The stored responses: GET, DELETE, cancel and the input items.

// getResponse serves GET /v1/responses/{id}.
func (o *OpenAI) getResponse(w http.ResponseWriter, r *http.Request) {
	rec, ok := o.storedResponse(w, r)
	if !ok {
		return
	}
	obj, err := storedObject(rec)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, obj)
}

// storedResponse reads the response the path names, for the user the
// request names (none: anyone's; a response id is a random capability).
func (o *OpenAI) storedResponse(w http.ResponseWriter, r *http.Request) (session.Response, bool) {
	id := chi.URLParam(r, "id")
	rec, err := o.opts.Sessions.Response(r.Context(), o.headerUser(r), id)
	if err != nil {
		if beamclaw.KindOf(err) == beamclaw.KindNotFound {
			writeRequestError(w, responseNotFound(id))
		} else {
			writeError(w, err)
		}
		return session.Response{}, false
	}
	return rec, true
}

// headerUser is the session user id of the request's user header ("" for
// none).
func (o *OpenAI) headerUser(r *http.Request) string {
	if id, err := o.userOf(r, ""); err == nil && id != "" {
		return o.opts.UserID("api", id)
	}
	return ""
}

func responseNotFound(id string) *requestError {
	return &requestError{status: http.StatusNotFound, msg: fmt.Sprintf("No response found with id '%s'.", id)}
}

// deleteResponse serves DELETE /v1/responses/{id}: the response goes, its
// conversation stays.
func (o *OpenAI) deleteResponse(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	if err := o.opts.Sessions.DeleteResponse(r.Context(), o.headerUser(r), id); err != nil {
		if beamclaw.KindOf(err) == beamclaw.KindNotFound {
			writeRequestError(w, responseNotFound(id))
		} else {
			writeError(w, err)
		}
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "response.deleted", "deleted": true})
}

// cancelResponse serves POST /v1/responses/{id}/cancel: the run in
// progress stops, and the response is answered as stored (cancelled).
func (o *OpenAI) cancelResponse(w http.ResponseWriter, r *http.Request) {
	id, user := chi.URLParam(r, "id"), o.headerUser(r)
	err := o.opts.Sessions.CancelResponse(r.Context(), user, id)
	if beamclaw.KindOf(err) == beamclaw.KindNotFound {
		if _, gerr := o.opts.Sessions.Response(r.Context(), user, id); gerr == nil {
			writeRequestError(w, &requestError{status: http.StatusConflict, code: "response_not_in_progress",
				msg: fmt.Sprintf("Response '%s' is not in progress: only a response whose run is going on can be cancelled.", id)})
			return
		}
		writeRequestError(w, responseNotFound(id))
		return
	}
	if err != nil {
		writeError(w, err)
		return
	}
	o.getResponse(w, r)
}

// inputItems serves GET /v1/responses/{id}/input_items: the input as the
// request gave it, newest first unless order=asc, limit (1..100, default
// 20) at a time after the item id after.
func (o *OpenAI) inputItems(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 20
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			writeRequestError(w, badRequest("Invalid 'limit': expected an integer from 1 to 100.", "limit"))
			return
		}
		limit = n
	}
	order := q.Get("order")
	if order != "" && order != "asc" && order != "desc" {
		writeRequestError(w, badRequest("Invalid 'order': expected 'asc' or 'desc'.", "order"))
		return
	}
	rec, ok := o.storedResponse(w, r)
	if !ok {
		return
	}
	var e responseEcho
	if err := json.Unmarshal(rec.Echo, &e); err != nil {
		writeError(w, err)
		return
	}
	items := e.Input
	if order != "asc" {
		items = slices.Clone(items)
		slices.Reverse(items)
	}
	if after := q.Get("after"); after != "" {
		for i, it := range items {
			if it.ID == after {
				items = items[i+1:]
				break
			}
		}
	}
	more := len(items) > limit
	items = items[:min(limit, len(items))]
	list := map[string]any{"object": "list", "data": items, "has_more": more, "first_id": nil, "last_id": nil}
	if len(items) > 0 {
		list["first_id"], list["last_id"] = items[0].ID, items[len(items)-1].ID
	}
	writeJSON(w, http.StatusOK, list)
}
