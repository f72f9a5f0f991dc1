package skill

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheck(t *testing.T) {
	env := fakeEnv("linux", []string{"gh", "curl"}, map[string]string{"GH_TOKEN": "x", "EMPTY": " "})
	tests := []struct {
		name    string
		req     Requires
		missing []string
	}{
		{"nothing required", Requires{}, nil},
		{"bins present", Requires{Bins: []string{"gh", "curl"}}, nil},
		{"bin missing", Requires{Bins: []string{"gh", "jq"}}, []string{"binary jq not found on PATH"}},
		{"any bin present", Requires{AnyBins: []string{"wget", "curl"}}, nil},
		{"no any bin", Requires{AnyBins: []string{"wget", "fetch"}}, []string{"none of the binaries wget, fetch found on PATH"}},
		{"env set", Requires{Env: []string{"GH_TOKEN"}}, nil},
		{"env missing and blank", Requires{Env: []string{"NOPE", "EMPTY"}}, []string{
			"environment variable NOPE not set", "environment variable EMPTY not set"}},
		{"os matches", Requires{OS: []string{"darwin", "Linux"}}, nil},
		{"os alias mismatch", Requires{OS: []string{"macos"}}, []string{"needs OS macos (this is linux)"}},
		{"several", Requires{Bins: []string{"jq"}, OS: []string{"win32"}}, []string{
			"binary jq not found on PATH", "needs OS win32 (this is linux)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Check(Skill{Name: "x", Requires: tt.req}, env)
			if diff := cmp.Diff(tt.missing, st.Missing); diff != "" {
				t.Errorf("Missing (-want +got):\n%s", diff)
			}
			if st.Eligible != (len(tt.missing) == 0) {
				t.Errorf("Eligible = %v", st.Eligible)
			}
		})
	}
}
