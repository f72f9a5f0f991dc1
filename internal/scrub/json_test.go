package scrub

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"clean unchanged", `{"path": "/tmp/x", "n": 3}`, `{"path": "/tmp/x", "n": 3}`},
		{"secret keys", `{"api_key":"abc","Token":123,"user":"bob"}`, `{"api_key":"[REDACTED]","Token":"[REDACTED]","user":"bob"}`},
		{"key spellings", `{"X-Api-Key":"a","client_secret":"b","db_password":"c","Authorization":"Basic x"}`,
			`{"X-Api-Key":"[REDACTED]","client_secret":"[REDACTED]","db_password":"[REDACTED]","Authorization":"[REDACTED]"}`},
		{"nested secret object", `{"secret": {"a": [1, "x"]}, "ok": 1}`, `{"secret": "[REDACTED]", "ok": 1}`},
		{"booleans and null kept", `{"has_password": true, "token": null}`, `{"has_password": true, "token": null}`},
		{"max_tokens kept", `{"max_tokens": 100, "tokens": [1]}`, `{"max_tokens": 100, "tokens": [1]}`},
		{"string values scrubbed", `{"cmd": "curl -H 'Authorization: Bearer abcdef123456'"}`,
			`{"cmd": "curl -H 'Authorization: Bearer [REDACTED]'"}`},
		{"escaped secret", `["\u0067hp_` + fakeGitHub[4:] + `"]`, `["[REDACTED]"]`},
		{"array of strings", `["password=x", "fine"]`, `["password=[REDACTED]", "fine"]`},
		{"invalid json as text", `not json: token=abc`, `not json: token=[REDACTED]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JSON(json.RawMessage(tt.in))
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("JSON(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if json.Valid([]byte(tt.in)) && !json.Valid(got) {
				t.Errorf("JSON(%s) = %s: not valid JSON", tt.in, got)
			}
		})
	}
}

func TestScrubberJSON(t *testing.T) {
	s := New("weird|secret|value")
	got := s.JSON(json.RawMessage(`{"note":"it is weird|secret|value here"}`))
	if diff := cmp.Diff(`{"note":"it is [REDACTED] here"}`, string(got)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}
