package faketelegram

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

const maxBody = 50 << 20

// parseParams reads a Bot API request the three ways Telegram accepts:
// query string, multipart/form-data or url-encoded form, and JSON. JSON
// values that are not strings keep their JSON text (as a form field would
// carry reply_markup).
func parseParams(r *http.Request) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range r.URL.Query() {
		out[k] = v[0]
	}
	r.Body = http.MaxBytesReader(nil, r.Body, maxBody)
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "multipart/form-data":
		if err := r.ParseMultipartForm(maxBody); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil // an empty multipart body: no parameters
			}
			return nil, fmt.Errorf("multipart: %w", err)
		}
		for k, v := range r.MultipartForm.Value {
			out[k] = v[0]
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, fmt.Errorf("form: %w", err)
		}
		for k, v := range r.PostForm {
			out[k] = v[0]
		}
	case "application/json":
		var m map[string]json.RawMessage
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, fmt.Errorf("read body: %w", err)
		}
		if len(strings.TrimSpace(string(body))) == 0 {
			return out, nil
		}
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("json: %w", err)
		}
		for k, v := range m {
			var s string
			if json.Unmarshal(v, &s) == nil {
				out[k] = s
			} else {
				out[k] = string(v)
			}
		}
	}
	return out, nil
}

func intParam(p map[string]string, key string) (int64, bool) {
	v, ok := p[key]
	if !ok || v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}
