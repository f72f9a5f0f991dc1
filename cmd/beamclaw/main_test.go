package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The binary links net/http/pprof (through the embedded NATS server),
// which registers on http.DefaultServeMux; main empties that mux.
func TestDebugHandlersDropped(t *testing.T) {
	serve := func() int {
		w := httptest.NewRecorder()
		http.DefaultServeMux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/debug/pprof/", nil))
		return w.Code
	}
	if code := serve(); code != http.StatusOK {
		t.Fatalf("/debug/pprof/ before: %d (is net/http/pprof still linked? then this test and dropDebugHandlers can go)", code)
	}
	dropDebugHandlers()
	if code := serve(); code != http.StatusNotFound {
		t.Fatalf("/debug/pprof/ after dropDebugHandlers: %d", code)
	}
}
