package builtin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/test/testenv"
)

const jqDoc = `{"name":"beam","tags":["a","b","c"],"n":3,"items":[{"id":1,"price":2.5,"ok":true},{"id":2,"price":10,"ok":false},{"id":3,"price":null,"ok":true}],"nested":{"z":1,"a":{"y":[1,2]}}}`

// jqFilters are compared with Debian's jq (`jq -c -S`: gojq always sorts
// object keys, jq keeps insertion order, so filters that serialise objects
// to strings are left out).
var jqFilters = []string{
	`.`,
	`.name`,
	`.tags[]`,
	`.tags | length`,
	`.items[] | select(.ok) | .id`,
	`[.items[] | .price // 0] | add`,
	`.items | map({id, cheap: (.price != null and .price < 5)})`,
	`.nested | keys`,
	`to_entries | map(.key) | sort`,
	`[.tags[] | ascii_upcase] | join("-")`,
	`.items | group_by(.ok) | map(length)`,
	`[paths(type == "number")] | length`,
	`reduce .items[] as $i (0; . + $i.id)`,
	`.missing // "default"`,
	`[range(0; .n)] | map(. * 2)`,
	`.nested | [tostream | select(length == 2) | .[0] | map(tostring) | join(".")] | sort`,
	`{name, count: (.items | length)}`,
	`.items[] | "\(.id): \(.price // "n/a")"`,
	`.tags | index("b")`,
	`.tags as [$first] | $first`,
	`[limit(2; .items[])] | map(.id)`,
	`.items | sort_by(-.id) | first | .id`,
}

func realJQ(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("jq")
	if err == nil {
		return path
	}
	testenv.Unavailable(t, "Debian's jq (the gojq comparison did not run)", "apt-get install -y jq")
	return ""
}

func TestJQMatchesDebianJQ(t *testing.T) {
	bin := realJQ(t)
	jq := builtin.NewJQ(builtin.JQOptions{})
	for _, f := range jqFilters {
		t.Run(f, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), bin, "-c", "-S", f)
			cmd.Stdin = strings.NewReader(jqDoc)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("jq %s: %v: %s", f, err, stderr.String())
			}
			want := strings.TrimSuffix(string(out), "\n")
			got := mustOK(t, call(t, t.Context(), jq, "", map[string]any{"filter": f, "input": jqDoc}))
			if got != want {
				t.Errorf("gojq:\n%s\njq:\n%s", got, want)
			}
		})
	}
}

func TestJQInputs(t *testing.T) {
	jq := builtin.NewJQ(builtin.JQOptions{})
	tests := []struct {
		name  string
		input any
		want  string
	}{
		{"value given directly", map[string]any{"a": []int{1, 2}}, "[1,2]"},
		{"stream of texts", `{"a":1} {"a":2}`, "1\n2"},
		{"number text", `42`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustOK(t, call(t, t.Context(), jq, "", map[string]any{"filter": ".a?", "input": tc.input})); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestJQErrors(t *testing.T) {
	jq := builtin.NewJQ(builtin.JQOptions{Timeout: 50 * time.Millisecond, MaxOutputBytes: 1000})
	tests := []struct {
		name   string
		filter string
		input  any
		want   string
	}{
		{"parse error", `.[`, `{}`, "jq: parse filter"},
		{"runtime error", `.a + 1`, `{"a":"x"}`, "jq: error"},
		{"not JSON", `.`, `not json`, "the input string is not JSON text"},
		{"endless output", `repeat(1)`, `null`, "output passed 1000 bytes"},
		{"endless loop", `last(range(1e18))`, `null`, "filter stopped after 50ms"},
		{"no environment", `$ENV | length`, `null`, ""},
		{"missing input", `.`, nil, `argument "input": required`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"filter": tc.filter}
			if tc.input != nil {
				args["input"] = tc.input
			}
			res := call(t, t.Context(), jq, "", args)
			if tc.want == "" {
				if got := mustOK(t, res); got != "0" {
					t.Errorf("$ENV has %s entries", got)
				}
				return
			}
			if got := mustErr(t, res); !strings.Contains(got, tc.want) {
				t.Errorf("error = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

func FuzzJQInput(f *testing.F) {
	f.Add(".", `{"a":1}`)
	f.Add(".[] | .x?", `[1,{"x":2}] 3`)
	jq := builtin.NewJQ(builtin.JQOptions{Timeout: 100 * time.Millisecond, MaxOutputBytes: 1 << 12})
	f.Fuzz(func(t *testing.T, filter, input string) {
		args, _ := json.Marshal(map[string]string{"filter": filter, "input": input})
		_, _ = jq.Execute(context.Background(), invocation(args))
	})
}
