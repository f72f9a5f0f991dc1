package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// apiError is the control API's answer to a request it refused.
type apiError struct {
	Status  int
	Message string
}

func (e *apiError) Error() string { return e.Message }

// statusOf is the HTTP status an error of the API maps to on a page.
func statusOf(err error) int {
	if ae, ok := errors.AsType[*apiError](err); ok {
		return ae.Status
	}
	return http.StatusInternalServerError
}

// recorder is the in-process response of an API call.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

// call runs one control API request in process: method on path (a
// /control path with its query), body as JSON, the answer into out.
func (c *Console) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("console: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, path, rd)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := &recorder{header: http.Header{}}
	c.opts.API.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	if rec.status >= 300 {
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		msg := http.StatusText(rec.status)
		if json.Unmarshal(rec.body.Bytes(), &e) == nil && e.Error.Message != "" {
			msg = e.Error.Message
		}
		return &apiError{Status: rec.status, Message: msg}
	}
	if out == nil || rec.body.Len() == 0 {
		return nil
	}
	if err := json.Unmarshal(rec.body.Bytes(), out); err != nil {
		return fmt.Errorf("console: the answer of %s %s: %w", method, path, err)
	}
	return nil
}

// get reads path with query q into out.
func (c *Console) get(ctx context.Context, path string, q url.Values, out any) error {
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return c.call(ctx, http.MethodGet, path, nil, out)
}

// pass serves r with the API handler of path (a stream or a download:
// the events, an export), writing straight to w.
func (c *Console) pass(w http.ResponseWriter, r *http.Request, path string, q url.Values) {
	r2 := r.Clone(r.Context())
	r2.URL = &url.URL{Path: path, RawQuery: q.Encode()}
	r2.RequestURI = ""
	c.opts.API.ServeHTTP(w, r2)
}
