package builtin_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/test/fakebrave"
)

func braveResults(query string) []fakebrave.Result {
	return []fakebrave.Result{
		{Title: "Erlang <strong>OTP</strong>", URL: "https://www.erlang.org/", Description: "Build massively scalable soft real-time systems &amp; more about " + query},
		{Title: "BEAM (Erlang virtual machine)", URL: "https://en.wikipedia.org/wiki/BEAM_(Erlang_virtual_machine)", Description: ""},
		{Title: "Third", URL: "https://example.org/3", Description: "third result"},
	}
}

func TestWebSearch(t *testing.T) {
	srv := fakebrave.New("brave-key", braveResults)
	defer srv.Close()
	ws := builtin.NewWebSearch(builtin.WebSearchOptions{APIKey: "brave-key", BaseURL: srv.URL + "/"})
	got := mustOK(t, call(t, t.Context(), ws, "", map[string]any{"query": "beam vm", "count": 2}))
	want := "1. Erlang OTP\n   https://www.erlang.org/\n   Build massively scalable soft real-time systems & more about beam vm\n\n" +
		"2. BEAM (Erlang virtual machine)\n   https://en.wikipedia.org/wiki/BEAM_(Erlang_virtual_machine)"
	if got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	if diff := cmp.Diff([]fakebrave.Request{{Query: "beam vm", Count: 2, Token: "brave-key"}}, srv.Requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestWebSearchErrors(t *testing.T) {
	srv := fakebrave.New("brave-key", func(string) []fakebrave.Result { return nil })
	defer srv.Close()
	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer limited.Close()
	tests := []struct {
		name  string
		opts  builtin.WebSearchOptions
		args  map[string]any
		want  string
		isErr bool
	}{
		{"missing key", builtin.WebSearchOptions{BaseURL: srv.URL}, map[string]any{"query": "x"}, "web_search is not configured: set tools.web_search.api_key", true},
		{"wrong key", builtin.WebSearchOptions{APIKey: "nope", BaseURL: srv.URL}, map[string]any{"query": "x"}, "rejected the key (HTTP 401)", true},
		{"rate limited", builtin.WebSearchOptions{APIKey: "k", BaseURL: limited.URL}, map[string]any{"query": "x"}, "rate limited", true},
		{"count too big", builtin.WebSearchOptions{APIKey: "brave-key", BaseURL: srv.URL}, map[string]any{"query": "x", "count": 50}, `argument "count": must be ≤ 20`, true},
		{"no results", builtin.WebSearchOptions{APIKey: "brave-key", BaseURL: srv.URL}, map[string]any{"query": "nothing"}, `No results for "nothing".`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, t.Context(), builtin.NewWebSearch(tc.opts), "", tc.args)
			if res.IsError != tc.isErr || !strings.Contains(res.Content, tc.want) {
				t.Errorf("result = %+v, want error=%v containing %q", res, tc.isErr, tc.want)
			}
			if strings.Contains(res.Content, "nope") {
				t.Error("the key leaked into the result")
			}
		})
	}
}
