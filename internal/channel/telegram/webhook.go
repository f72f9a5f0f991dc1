package telegram

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// WebhookPath is where the gateway mounts WebhookHandler.
const WebhookPath = "/webhook/telegram"

// maxUpdateBytes bounds a webhook body (updates are small JSON objects).
const maxUpdateBytes = 1 << 20

// SecretHeader carries the webhook secret Telegram was given.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// WebhookHandler serves POST /webhook/telegram: it checks the secret in
// constant time (401 on mismatch), records the update durably in bbolt
// (de-duplicated by update_id) and only then answers 200; the channel's
// worker processes it afterwards. A storage failure answers 500 so that
// Telegram delivers the update again.
func (c *Channel) WebhookHandler() http.Handler {
	want := sha256.Sum256([]byte(c.opts.WebhookSecret))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		got := sha256.Sum256([]byte(r.Header.Get(SecretHeader)))
		if c.opts.WebhookSecret == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpdateBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, "update too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "cannot read update", http.StatusBadRequest)
			return
		}
		var head struct {
			ID *int64 `json:"update_id"`
		}
		if err := json.Unmarshal(body, &head); err != nil || head.ID == nil {
			http.Error(w, "not a Telegram update", http.StatusBadRequest)
			return
		}
		if _, err := c.ingest(*head.ID, body); err != nil {
			c.log.Error("record webhook update", "update_id", *head.ID, "err", err)
			http.Error(w, "cannot store update", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
}
