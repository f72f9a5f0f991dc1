package admin

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// request makes a pending pairing request in the store and returns its code.
func request(t *testing.T, db *store.DB, userID, name string) string {
	t.Helper()
	p, _, err := pairing.New(db, pairing.Options{}).Request("telegram", userID, name)
	if err != nil {
		t.Fatal(err)
	}
	return p.Code
}

func openStore(t *testing.T, env *Admin) (*store.DB, config.Paths) {
	t.Helper()
	paths, err := env.paths()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(paths.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db, paths
}

// pairFlow approves, lists and revokes through the exported functions and
// checks the answers; it works the same with or without a daemon.
func pairFlow(t *testing.T, env *Admin, code string) {
	t.Helper()
	ctx := context.Background()
	list, err := env.PairList(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Pending) != 1 || list.Pending[0].UserID != "42" || len(list.Approved) != 0 {
		t.Fatalf("list before: %+v", list)
	}
	for _, tc := range []struct {
		req  protocol.PairApproveRequest
		want string
	}{
		{protocol.PairApproveRequest{Channel: "telegram", Code: "ZZZZZZZZ"}, "no pending pairing request has that code"},
		{protocol.PairApproveRequest{Channel: "signal", Code: code}, `unknown channel "signal"`},
		{protocol.PairApproveRequest{Channel: "telegram", Code: code, Agent: "ghost"}, `no agent named "ghost"`},
		{protocol.PairApproveRequest{Channel: "telegram", Code: code, Agent: "../x"}, "agent names use"},
	} {
		if _, err := env.PairApprove(ctx, tc.req); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("approve %+v: %v, want %q", tc.req, err, tc.want)
		}
	}
	typed := strings.ToLower(code[:4] + "-" + code[4:])
	peer, err := env.PairApprove(ctx, protocol.PairApproveRequest{Channel: "telegram", Code: typed, Agent: "work"})
	if err != nil {
		t.Fatal(err)
	}
	if peer.UserID != "42" || peer.Name != "ann" || peer.Agent != "work" {
		t.Errorf("peer: %+v", peer)
	}
	list, err = env.PairList(ctx, "telegram")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Pending) != 0 || len(list.Approved) != 1 || list.Approved[0].Agent != "work" {
		t.Errorf("list after: %+v", list)
	}
	if err := env.PairRevoke(ctx, protocol.PairRevokeRequest{Channel: "telegram", UserID: "42"}); err != nil {
		t.Fatal(err)
	}
	err = env.PairRevoke(ctx, protocol.PairRevokeRequest{Channel: "telegram", UserID: "42"})
	if err == nil || !strings.HasPrefix(err.Error(), "no approved peer or pending request") {
		t.Errorf("second revoke: %v", err)
	}
	if _, err := env.PairList(ctx, "irc"); err == nil || !strings.Contains(err.Error(), "unknown channel") {
		t.Errorf("list of an unknown channel: %v", err)
	}
}

func TestPairingWithoutDaemon(t *testing.T) {
	env := testEnv(t, "")
	if _, err := env.AgentCreate("work"); err != nil {
		t.Fatal(err)
	}
	db, _ := openStore(t, env)
	code := request(t, db, "42", "ann")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	pairFlow(t, env, code)
}

// TestPairingThroughControlSocket holds the store open, as a daemon does,
// so only the control routes can reach it.
func TestPairingThroughControlSocket(t *testing.T) {
	env := testEnv(t, "")
	if _, err := env.AgentCreate("work"); err != nil {
		t.Fatal(err)
	}
	db, paths := openStore(t, env)
	defer db.Close()
	code := request(t, db, "42", "ann")
	if err := os.MkdirAll(paths.RunDir, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", paths.Socket)
	if err != nil {
		t.Fatal(err)
	}
	gw := gateway.New(gateway.Options{
		Control: control.Routes(control.Deps{DB: db, AgentsDir: paths.AgentsDir}),
		Status:  func(context.Context) protocol.Status { return protocol.Status{PID: os.Getpid()} },
	})
	srv := &http.Server{Handler: gw.ControlHandler(), ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Error(err)
		}
	}()
	pairFlow(t, env, code)

	// Without pairing state the MCP routes still answer.
	list, err := env.MCPList(context.Background())
	if err != nil || !list.Daemon || len(list.Servers) != 0 {
		t.Errorf("mcp list over the socket: %+v %v", list, err)
	}
}
