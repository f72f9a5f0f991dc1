package httppost

import (
	"errors"
	"io"
	"net/http"
	"net/url"
)

// drainMax is how much of an answer's body is read before it is closed,
// so that its connection can be reused.
const drainMax = 64 << 10

// Send sends req with c, drains the answer's body (drainMax at most) and
// closes it: only its status is left to read. Its error is the cause
// alone, without the *url.Error around it, whose text holds the URL (it
// may carry a token).
func Send(c *http.Client, req *http.Request) (*http.Response, error) {
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainMax))
	return resp, nil
}
