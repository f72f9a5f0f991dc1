package oauth

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseChallenge(t *testing.T) {
	tests := []struct {
		name   string
		header []string
		want   Challenge
	}{
		{"resource metadata and scope", []string{`Bearer resource_metadata="https://a/.well-known/oauth-protected-resource/mcp", scope="mcp:basic"`},
			Challenge{Status: 401, ResourceMetadata: "https://a/.well-known/oauth-protected-resource/mcp", Scope: "mcp:basic"}},
		{"step-up", []string{`Bearer error="insufficient_scope", scope="a b", error_description="more \"please\""`},
			Challenge{Status: 401, Scope: "a b", Error: "insufficient_scope", Description: `more "please"`}},
		{"other scheme first", []string{`Basic realm="x", Bearer scope=tok:en`},
			Challenge{Status: 401, Scope: "tok:en"}},
		{"two headers", []string{`Basic realm="x"`, `Bearer error=invalid_token`},
			Challenge{Status: 401, Error: "invalid_token"}},
		{"none", nil, Challenge{Status: 401}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tc.header {
				h.Add("WWW-Authenticate", v)
			}
			if diff := cmp.Diff(tc.want, ParseChallenge(401, h)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnionScopes(t *testing.T) {
	if got := unionScopes("a b", "b c", "", "a d"); got != "a b c d" {
		t.Errorf("unionScopes = %q", got)
	}
}
