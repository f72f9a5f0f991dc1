package control

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// serve mounts Routes over a real store (no MCP, sessions, scheduler or
// sandbox) behind the gateway's control handler.
func serve(t *testing.T) (*httptest.Server, *store.DB) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "beamclaw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	srv, _ := doors(t, Deps{DB: db, AgentsDir: filepath.Join(dir, "agents")})
	return srv, db
}

// TestRoutesAnswer pins each route's status and the control_error shape
// of its refusals.
func TestRoutesAnswer(t *testing.T) {
	srv, db := serve(t)
	p, _, err := pairing.New(db, pairing.Options{}).Request("telegram", "42", "ann")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		want                     string // in the body
	}{
		{"mcp list without mcp", http.MethodGet, protocol.ControlMCP, "", http.StatusOK, `"daemon":true`},
		{"mcp tools of no server", http.MethodGet, protocol.ControlMCPTools + "?server=x", "", http.StatusNotFound, `no MCP server named \"x\"`},
		{"mcp accept bad json", http.MethodPost, protocol.ControlMCPAccept, `{"nope":1}`, http.StatusBadRequest, "invalid JSON body"},
		{"pairing list", http.MethodGet, protocol.ControlPairing, "", http.StatusOK, `"user_id":"42"`},
		{"pairing list unknown channel", http.MethodGet, protocol.ControlPairing + "?channel=irc", "", http.StatusBadRequest, "unknown channel"},
		{"pairing approve unknown code", http.MethodPost, protocol.ControlPairingApprove, `{"channel":"telegram","code":"ZZZZZZZZ"}`,
			http.StatusNotFound, "no pending pairing request has that code"},
		{"pairing approve unknown agent", http.MethodPost, protocol.ControlPairingApprove,
			`{"channel":"telegram","code":"` + p.Code + `","agent":"nobody"}`, http.StatusBadRequest, `no agent named \"nobody\"`},
		{"pairing approve", http.MethodPost, protocol.ControlPairingApprove, `{"channel":"telegram","code":"` + p.Code + `"}`,
			http.StatusOK, `"user_id":"42"`},
		{"pairing revoke", http.MethodPost, protocol.ControlPairingRevoke, `{"channel":"telegram","user_id":"42"}`, http.StatusNoContent, ""},
		{"pairing revoke again", http.MethodPost, protocol.ControlPairingRevoke, `{"channel":"telegram","user_id":"42"}`,
			http.StatusNotFound, "no approved peer"},
		{"db check", http.MethodGet, protocol.ControlDBCheck, "", http.StatusOK, `"ok":true`},
		{"sessions without sessions", http.MethodGet, protocol.ControlSessions, "", http.StatusNotFound, "this daemon keeps no sessions"},
		{"scheduler off", http.MethodGet, protocol.ControlScheduler, "", http.StatusNotFound, "the scheduler is off"},
		{"a2a tasks with the edge off", http.MethodGet, protocol.ControlA2ATasks, "", http.StatusNotFound, "the A2A edge is off"},
		{"sandbox off", http.MethodGet, protocol.ControlSandbox, "", http.StatusConflict, "the running daemon has the sandbox off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := do(t, srv, tc.method, tc.path, "", tc.body)
			body := []byte(a.body)
			if a.status != tc.status || !strings.Contains(a.body, tc.want) {
				t.Fatalf("%s %s: %d %s, want %d with %q", tc.method, tc.path, a.status, body, tc.status, tc.want)
			}
			if a.status < 400 {
				return
			}
			var e protocol.Error
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Type != "control_error" || e.Error.Code == nil ||
				*e.Error.Code != http.StatusText(tc.status) {
				t.Errorf("error body %s: %+v %v", body, e, err)
			}
		})
	}
}
