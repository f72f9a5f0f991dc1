package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/test/mcpfixtures"
)

// keyCounter serves h and counts the requests that carry the key.
type keyCounter struct {
	h    http.Handler
	key  string
	all  atomic.Int32
	keys atomic.Int32
}

func (k *keyCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.all.Add(1)
	if r.Header.Get("X-Api-Key") == k.key {
		k.keys.Add(1)
	}
	k.h.ServeHTTP(w, r)
}

// TestHTTPRedirects (issue 23, item 3): a redirect on the server's own
// origin is followed with its headers; one to another origin (here another
// port of 127.0.0.1, a working MCP server) is refused before anything is
// sent there, with an error that names the server and the target origin
// and not the secret.
func TestHTTPRedirects(t *testing.T) {
	const key = "redirect-test-key-0123456789"
	elsewhere := &keyCounter{h: mcpserver.NewStreamableHTTPServer(mcpfixtures.NewServer(mcpfixtures.Options{})), key: key}
	other := httptest.NewServer(elsewhere)
	t.Cleanup(other.Close)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.NewStreamableHTTPServer(mcpfixtures.NewServer(mcpfixtures.Options{})))
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	})
	home := &keyCounter{h: mux, key: key}
	front := httptest.NewServer(home)
	t.Cleanup(front.Close)
	allowAll := func(context.Context, string) error { return nil }
	cfg := func(path string) ServerConfig {
		return ServerConfig{Name: "web", Transport: TransportHTTP, URL: front.URL + path, Enabled: true,
			Headers: map[string]string{"X-Api-Key": key}}
	}

	tools, err := Probe(context.Background(), cfg("/moved"), Options{})
	if err != nil || len(tools) == 0 {
		t.Fatalf("a same-origin redirect: %d tools, %v", len(tools), err)
	}
	if home.keys.Load() == 0 {
		t.Error("the configured server never got its header")
	}

	// Refused even where the address rule would allow the target.
	_, err = Probe(context.Background(), cfg("/away"), Options{RedirectCheck: allowAll})
	var re *oauth.RedirectError
	if !errors.As(err, &re) {
		t.Fatalf("a cross-origin redirect: %v, want a *oauth.RedirectError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, `mcp server "web"`) || !strings.Contains(msg, "redirect") ||
		!strings.Contains(msg, strings.TrimPrefix(other.URL, "http://")) || strings.Contains(msg, key) {
		t.Errorf("the refusal says %q", msg)
	}
	if n := elsewhere.all.Load(); n != 0 {
		t.Errorf("the other origin got %d requests (%d with the key)", n, elsewhere.keys.Load())
	}
}
