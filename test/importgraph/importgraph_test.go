// Package importgraph guards the architecture of beamclaw-go: it reads
// `go list -json ./...` and checks every internal import against the
// layers and rules of ARCHITECTURE.md, the owners of third-party modules
// (thirdparty_test.go) and the size of production files and functions
// (size_test.go).
package importgraph

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/beamclaw/beamclaw-go"

// layers, lowest first. A package may import its own layer's vocabulary
// (beamclaw) and anything in a strictly lower layer, subject to the rules
// in TestImportGraph.
var layers = []struct {
	name string
	pkgs []string // package paths relative to the module; "x/..." matches subpackages
}{
	{"vocabulary", []string{"internal/beamclaw", "internal/clock", "pkg/protocol"}},
	{"leaves", []string{"internal/setting/...", "internal/obs/...", "internal/supervise", "internal/toolparse", "internal/scrub/...", "internal/glob", "internal/procguard", "internal/initgc", "internal/elicit", "internal/runqueue", "internal/httppost", "docker/sandbox"}},
	{"adapters", []string{"internal/store/...", "internal/cluster/...", "internal/provider/...", "internal/mcp/...", "internal/sandbox"}},
	{"core", []string{"internal/channel", "internal/memory/...", "internal/skill", "internal/workspace", "internal/pairing", "internal/people", "internal/usage", "internal/tool/...",
		"internal/loop", "internal/session", "internal/scheduler", "internal/agent", "skills"}},
	{"public client", []string{"pkg/client"}},
	{"edges", []string{"internal/gateway", "internal/channel/...", "internal/a2a", "internal/console"}},
	// the file: composes the sections their packages own (ADR-025)
	{"config", []string{"internal/config"}},
	{"root", []string{"internal/daemon", "internal/admin", "internal/control", "internal/cli"}},
	{"main", []string{"cmd/..."}},
}

// siblings that may import each other within a layer (the loop drives
// tools and the session drives the loop).
var sameLayerAllowed = map[[2]string]bool{
	{"internal/loop", "internal/tool"}:          true,
	{"internal/loop", "internal/toolparse"}:     true,
	{"internal/session", "internal/loop"}:       true,
	{"internal/session", "internal/tool"}:       true,
	{"internal/tool/builtin", "internal/tool"}:  true,
	{"internal/obs", "internal/beamclaw"}:       true,
	{"internal/obs", "internal/setting"}:        true, // obs owns its config section
	{"internal/setting", "internal/scrub"}:      true, // one definition of "looks like a secret"
	{"internal/agent", "internal/memory"}:       true, // the agent runtime ties workspace, skills and memory
	{"internal/agent", "internal/skill"}:        true,
	{"internal/agent", "internal/workspace"}:    true,
	{"internal/agent", "internal/tool/builtin"}: true, // it implements the tools' memory and skill interfaces
	{"internal/agent", "skills"}:                true,
	{"internal/people", "internal/pairing"}:     true, // a link code is a pairing code: one generator, one normalizer
	{"internal/session", "internal/usage"}:      true, // a turn writes its model calls to the ledger in its own commit
	{"internal/daemon", "internal/admin"}:       true,
	{"internal/console", "internal/gateway"}:    true, // the console is served by the gateway and mounts through it // the daemon opens the MCP logins' store admin's CLI shares
	// the control API: the daemon serves its routes, the CLI's offline
	// paths use its operations and wire conversions (one copy of each)
	{"internal/daemon", "internal/control"}:                        true,
	{"internal/admin", "internal/control"}:                         true,
	{"internal/memory", "internal/memory/search"}:                  true,
	{"internal/memory", "internal/memory/embedcache"}:              true,
	{"internal/provider/openai", "internal/provider"}:              true, // an adapter is built from the shared Settings
	{"internal/provider/anthropic", "internal/provider"}:           true,
	{"internal/cluster/clustertest", "internal/cluster"}:           true, // starts nodes for other packages' tests
	{"internal/store/replicatest", "internal/cluster"}:             true, // the stores of a test cluster's nodes
	{"internal/store/replicatest", "internal/cluster/clustertest"}: true,
	{"internal/store/replicatest", "internal/store"}:               true,
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Dir        string   // sizes: where its files are
	GoFiles    []string // sizes: its non-test files, the built ones
	CgoFiles   []string
	// IgnoredGoFiles are those left out by build constraints (test files
	// among them).
	IgnoredGoFiles []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = "../.."
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, errb.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(&out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	return strings.CutPrefix(path, module+"/")
}

func matches(p, pattern string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pattern
}

func layerOf(p string) (int, bool) {
	for i, l := range layers {
		for _, pat := range l.pkgs {
			if matches(p, pat) {
				return i, true
			}
		}
	}
	return 0, false
}

func isEdgeOrAdapter(p string) (string, bool) {
	i, ok := layerOf(p)
	if !ok {
		return "", false
	}
	switch layers[i].name {
	case "edges", "adapters":
		return layers[i].name, true
	}
	return "", false
}

func TestImportGraph(t *testing.T) {
	for _, p := range listPackages(t) {
		from, ok := rel(p.ImportPath)
		if !ok || strings.HasPrefix(from, "test/") {
			continue // fakes and suites under test/ are not part of the binary
		}
		fromLayer, known := layerOf(from)
		if !known {
			t.Errorf("%s is in no layer: add it to the table and to ARCHITECTURE.md", from)
			continue
		}
		for _, imp := range p.Imports {
			to, ok := rel(imp)
			if !ok {
				continue
			}
			checkEdge(t, from, to, fromLayer)
		}
	}
}

func checkEdge(t *testing.T, from, to string, fromLayer int) {
	t.Helper()
	switch {
	case strings.HasPrefix(from, "pkg/") && strings.HasPrefix(to, "internal/"):
		t.Errorf("%s imports %s: pkg/ never imports internal/", from, to)
		return
	case to == "internal/config":
		if !matches(from, "cmd/...") && from != "internal/daemon" && from != "internal/admin" {
			t.Errorf("%s imports %s: only cmd, internal/daemon and internal/admin may", from, to)
		}
		return
	case to == "internal/daemon", to == "internal/initgc": // initgc: a collector off until main resumes it
		if !matches(from, "cmd/...") {
			t.Errorf("%s imports %s: only cmd may", from, to)
		}
		return
	case strings.HasPrefix(to, "test/"):
		if !isTestHelper(from) {
			t.Errorf("%s imports %s: production code never imports test helpers", from, to)
		}
		return
	}
	if a, ok := isEdgeOrAdapter(from); ok {
		if b, ok := isEdgeOrAdapter(to); ok && a == b && !sameParent(from, to) && !sameLayerAllowed[[2]string{from, to}] {
			t.Errorf("%s imports %s: %s never import each other", from, to, a)
			return
		}
	}
	toLayer, known := layerOf(to)
	if !known {
		t.Errorf("%s imports %s, which is in no layer", from, to)
		return
	}
	if toLayer == 0 && !strings.HasPrefix(from, "pkg/") {
		return // the vocabulary is for everyone
	}
	if toLayer < fromLayer || sameLayerAllowed[[2]string{from, to}] || sameParent(from, to) {
		return
	}
	t.Errorf("%s (%s) imports %s (%s): dependencies point down",
		from, layers[fromLayer].name, to, layers[toLayer].name)
}

// sameParent allows a package to import its own subpackages.
func sameParent(from, to string) bool { return strings.HasPrefix(to, from+"/") }
