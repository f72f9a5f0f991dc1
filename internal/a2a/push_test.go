package a2a

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

// The sender posts status events with the config's token, follows no
// redirect (the token reaches the configured host only), skips artifact
// chunks, and dials nothing the address policy refuses.
func TestPushSender(t *testing.T) {
	var mu sync.Mutex
	var got []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path+" "+r.Header.Get("A2A-Notification-Token")+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}
	}))
	defer hook.Close()
	allowLoopback := func(net.IP) error { return nil }
	ps := newPushSender(allowLoopback, nil, slog.New(slog.DiscardHandler))
	defer ps.client.CloseIdleConnections()
	info := a2a.TaskInfo{TaskID: "t1", ContextID: "c1"}
	status := a2a.NewStatusUpdateEvent(info, a2a.TaskStateCompleted, nil)
	cfg := &a2a.PushConfig{TaskID: "t1", URL: hook.URL + "/hook", Token: "tok",
		Auth: &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: "cred"}}
	ctx := context.Background()
	if err := ps.SendPush(ctx, cfg, status); err != nil {
		t.Fatal(err)
	}
	_ = ps.SendPush(ctx, cfg, a2a.NewArtifactEvent(info, a2a.NewTextPart("chunk")))
	redirect := *cfg
	redirect.URL = hook.URL + "/redirect"
	_ = ps.SendPush(ctx, &redirect, status)
	mu.Lock()
	defer mu.Unlock()
	want := []string{"/hook tok Bearer cred", "/redirect tok Bearer cred"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("pushes %q, want %q", got, want)
	}
	guarded := newPushSender(builtin.CheckPublicIP, nil, slog.New(slog.DiscardHandler))
	defer guarded.client.CloseIdleConnections()
	if err := guarded.send(ctx, cfg, status); err == nil {
		t.Fatal("the guard let a push reach loopback")
	}
}
