package control

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// apiToken is the gateway token of the public door doors serves.
const apiToken = "test-admin-token-0123456789"

// doors serves d's routes through both doors: the control socket's
// handler (sock) and the public listener's /api/v1 behind apiToken (api).
// d.DB defaults to a fresh store.
func doors(t *testing.T, d Deps) (sock, api *httptest.Server) {
	t.Helper()
	if d.DB == nil {
		db, err := store.Open(filepath.Join(t.TempDir(), "beamclaw.db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		d.DB = db
	}
	gw := gateway.New(gateway.Options{Token: apiToken, Control: Routes(d), Routes: APIRoutes(d),
		Status: func(context.Context) protocol.Status { return protocol.Status{} }})
	sock, api = httptest.NewServer(gw.ControlHandler()), httptest.NewServer(gw.PublicHandler())
	t.Cleanup(sock.Close)
	t.Cleanup(api.Close)
	return sock, api
}

// answer is what a request got: its status, headers and body.
type answer struct {
	status int
	header http.Header
	body   string
}

// do sends method path (with body, when not "") to srv, with the bearer
// token when not "".
func do(t *testing.T, srv *httptest.Server, method, path, token, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// wantError checks a is a refusal with status in the control API's one
// error shape, its message holding msg.
func wantError(t *testing.T, a answer, status int, msg string) {
	t.Helper()
	var e protocol.Error
	if a.status != status || json.Unmarshal([]byte(a.body), &e) != nil || e.Error.Type != "control_error" ||
		e.Error.Code == nil || *e.Error.Code != http.StatusText(status) || !strings.Contains(e.Error.Message, msg) {
		t.Errorf("got %d %s, want %d in the error shape saying %q", a.status, a.body, status, msg)
	}
}

// decode unmarshals a's body into v, failing the test unless a is 200.
func decode(t *testing.T, a answer, v any) {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("status %d: %s", a.status, a.body)
	}
	if err := json.Unmarshal([]byte(a.body), v); err != nil {
		t.Fatalf("%v: %s", err, a.body)
	}
}
