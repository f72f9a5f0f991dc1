package control

import (
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// The OpenAPI document describes every /api/v1 route, each with its own
// summary, and nothing else; every socket route but the backup has its
// /api/v1 twin.
func TestOpenAPIMatchesTheRoutes(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "beamclaw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	routes := APIRoutes(Deps{DB: db})
	doc := OpenAPI(routes)
	paths := doc["paths"].(map[string]map[string]any)
	mounted := map[string]bool{}
	for _, m := range routes {
		key := m.Method + " " + m.Pattern
		mounted[key] = true
		op, ok := paths[m.Pattern][strings.ToLower(m.Method)].(map[string]any)
		if !ok {
			t.Errorf("%s is mounted and not in the document", key)
			continue
		}
		if op["summary"] == key {
			t.Errorf("%s has no summary of its own (apiSummaries)", key)
		}
	}
	for p, ops := range paths {
		for method := range ops {
			if key := strings.ToUpper(method) + " " + p; !mounted[key] {
				t.Errorf("the document has %s, which is not mounted", key)
			}
		}
	}
	for _, m := range Routes(Deps{DB: db}) {
		twin := m.Method + " " + APIPrefix + strings.TrimPrefix(m.Pattern, "/control")
		if !mounted[twin] && !slices.Contains(socketOnly, m.Pattern) {
			t.Errorf("the socket's %s %s has no /api/v1 twin", m.Method, m.Pattern)
		}
	}
	if mounted[http.MethodGet+" "+APIPrefix+"/db/backup"] {
		t.Error("the database backup is on the public door")
	}
}
