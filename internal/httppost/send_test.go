package httppost

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestSendDrainsAndKeepsTheStatus(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = string(b)
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, strings.Repeat("x", 2*drainMax))
	}))
	defer srv.Close()
	c := srv.Client()
	defer c.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := Send(c, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusAccepted || got != `{"a":1}` {
		t.Errorf("status %d, body sent %q", resp.StatusCode, got)
	}
}

func TestSendErrorHoldsNoURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL + "/hook?token=s3cret"
	srv.Close() // nothing listens any more
	req, err := http.NewRequest(http.MethodPost, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Send(http.DefaultClient, req)
	if err == nil {
		t.Fatal("no error from a closed server")
	}
	if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "/hook") {
		t.Errorf("error %q holds the URL", err)
	}
}
