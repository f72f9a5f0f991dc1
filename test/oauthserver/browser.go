package oauthserver

import (
	"fmt"
	"io"
	"net/http"
)

// Browse plays the user's browser: it opens the authorization URL and
// follows the redirects back to the client's loopback listener, and
// reports an answer other than 200 at the end.
func Browse(authURL string) error {
	resp, err := http.Get(authURL) //nolint:noctx // a browser, bounded by the server's answer
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("authorization ended with %d: %s", resp.StatusCode, body)
	}
	return nil
}
