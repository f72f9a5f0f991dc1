package admin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// A damaged key file turns the MCP logins off, not the store: every call
// fails with oauth.ErrLoginRequired naming the file, MCPKeyProblem says
// why, and once the file is moved aside the store works again without
// being reopened (issue 23, item 9).
func TestMCPTokenStoreSurvivesADamagedKey(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "beamclaw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	keyFile := filepath.Join(dir, "secrets.key")
	if err := os.WriteFile(keyFile, []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := MCPKeyProblem(keyFile); err == nil || !strings.Contains(err.Error(), keyFile) {
		t.Fatalf("MCPKeyProblem = %v, want the damage named", err)
	}
	ts, err := MCPTokenStore(db, keyFile, nil)
	if err != nil {
		t.Fatalf("MCPTokenStore with a damaged key: %v", err)
	}
	ctx := context.Background()
	_, _, err = ts.Load(ctx, "web")
	if !errors.Is(err, oauth.ErrLoginRequired) || !strings.Contains(err.Error(), keyFile) {
		t.Errorf("Load = %v, want ErrLoginRequired naming the key file", err)
	}
	if err := ts.Save(ctx, oauth.Record{Server: "web", AccessToken: "t"}); !errors.Is(err, oauth.ErrLoginRequired) {
		t.Errorf("Save = %v, want ErrLoginRequired", err)
	}
	if err := os.Rename(keyFile, keyFile+".damaged"); err != nil {
		t.Fatal(err)
	}
	if err := ts.Save(ctx, oauth.Record{Server: "web", AccessToken: "t"}); err != nil {
		t.Fatalf("Save after the key was moved aside: %v", err)
	}
	if r, ok, err := ts.Load(ctx, "web"); err != nil || !ok || r.AccessToken != "t" {
		t.Errorf("Load = %+v %v %v", r, ok, err)
	}
	if err := MCPKeyProblem(keyFile); err != nil {
		t.Errorf("MCPKeyProblem with the new key: %v", err)
	}
}
