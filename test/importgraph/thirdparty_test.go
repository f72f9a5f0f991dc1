package importgraph

import (
	"path"
	"strings"
	"testing"
)

// owners pins which packages may import each third-party module directly:
// one adapter or edge per technology, so a library never spreads through
// the code. A module not listed here may be imported by anyone (small,
// pure libraries such as gojq); add a heavy or stateful one here.
var owners = []struct {
	module string   // import path prefix
	pkgs   []string // package patterns allowed to import it
}{
	{"charm.land/", []string{"internal/channel/tui"}},
	{"github.com/charmbracelet/", []string{"internal/channel/tui"}},
	{"github.com/yuin/goldmark", []string{"internal/channel/tui"}},
	{"github.com/moby/", []string{"internal/sandbox/..."}},
	{"github.com/docker/", []string{"internal/sandbox/..."}},
	{"github.com/go-telegram/", []string{"internal/channel/telegram"}},
	{"github.com/mark3labs/mcp-go", []string{"internal/mcp/..."}},
	{"github.com/anthropics/", []string{"internal/provider/anthropic"}},
	{"github.com/a2aproject/", []string{"internal/a2a/..."}},
	{"github.com/go-chi/", []string{"internal/gateway", "internal/a2a/..."}},
	{"github.com/gorilla/websocket", []string{"internal/gateway", "pkg/client"}},
	{"github.com/prometheus/", []string{"internal/obs"}},
	{"github.com/spf13/cobra", []string{"internal/cli"}},
	{"github.com/nats-io/", []string{"internal/cluster"}},
	{"go.etcd.io/bbolt", []string{"internal/store/...", "internal/session", "internal/memory/...", "internal/pairing", "internal/people", "internal/usage", "internal/console",
		"internal/channel/telegram", "internal/scheduler", "internal/a2a/...", "internal/sandbox/..."}},
	{"github.com/thejerf/suture", []string{"internal/supervise", "internal/session", "internal/mcp", "internal/daemon",
		"internal/sandbox/...", "internal/scheduler", "internal/a2a/..."}},
}

// heavy modules must not be reached, even indirectly, from the floors
// below the channel edge: a core package that pulls in a terminal UI or
// the Docker client makes every command start slower and every binary
// that embeds it bigger.
var heavy = []struct {
	module string
	floor  string // the highest layer allowed to reach it (inclusive), besides its owners
}{
	{"charm.land/", "edges"},
	{"github.com/charmbracelet/", "edges"},
	{"github.com/moby/", "adapters"},
	{"github.com/docker/", "adapters"},
	{"github.com/spf13/cobra", "root"},
}

func TestThirdPartyOwners(t *testing.T) {
	for _, p := range listPackages(t) {
		from, ok := rel(p.ImportPath)
		if !ok || strings.HasPrefix(from, "test/") {
			continue
		}
		for _, imp := range p.Imports {
			for _, o := range owners {
				if strings.HasPrefix(imp, o.module) && !matchesAny(from, o.pkgs) {
					t.Errorf("%s imports %s: only %s may (test/importgraph/thirdparty_test.go)",
						from, imp, strings.Join(o.pkgs, ", "))
				}
			}
		}
	}
}

func TestHeavyModulesStayUp(t *testing.T) {
	for _, p := range listPackages(t) {
		from, ok := rel(p.ImportPath)
		if !ok || strings.HasPrefix(from, "test/") {
			continue
		}
		layer, known := layerOf(from)
		if !known {
			continue
		}
		for _, dep := range p.Deps {
			for _, h := range heavy {
				if !strings.HasPrefix(dep, h.module) || layer > layerIndex(h.floor) || ownsModule(from, h.module) {
					continue
				}
				t.Errorf("%s (%s) depends on %s: only its owner and the floors above %s may",
					from, layers[layer].name, dep, h.floor)
			}
		}
	}
}

func ownsModule(pkg, module string) bool {
	for _, o := range owners {
		if o.module == module && matchesAny(pkg, o.pkgs) {
			return true
		}
	}
	return false
}

// isTestHelper reports whether p (relative to the module) is a package
// only tests import: those under test/, and those under internal/ named
// for what they start for other packages' tests (internal/cluster/
// clustertest). They may import test/ (test/freeport); the binary holds
// none of them (TestBinaryLeavesOutHeavyInit).
func isTestHelper(p string) bool {
	return strings.HasPrefix(p, "test/") || strings.HasPrefix(p, "internal/") && strings.HasSuffix(path.Base(p), "test")
}

func matchesAny(p string, patterns []string) bool {
	for _, pat := range patterns {
		if matches(p, pat) {
			return true
		}
	}
	return false
}

func layerIndex(name string) int {
	for i, l := range layers {
		if l.name == name {
			return i
		}
	}
	panic("no layer " + name)
}

// leftOut are modules the binary must not contain at all: their package
// initialisation runs on every command (chroma's lexer and style
// registries were 7.4 ms and 3.9 MB of every start, ADR-021), or they
// serve what a daemon must not (chi's middleware package imports
// net/http/pprof, which registers debug handlers on http.DefaultServeMux).
// The embedded NATS server imports net/http/pprof too; main empties that
// mux before anything runs (cmd/beamclaw TestDebugHandlersDropped).
var leftOut = []string{"github.com/alecthomas/chroma", "charm.land/glamour", "github.com/microcosm-cc/bluemonday",
	"github.com/go-chi/chi/v5/middleware"}

func TestBinaryLeavesOutHeavyInit(t *testing.T) {
	for _, p := range listPackages(t) {
		if p.ImportPath != module+"/cmd/beamclaw" {
			continue
		}
		for _, dep := range p.Deps {
			if r, ok := rel(dep); ok && isTestHelper(r) {
				t.Errorf("the binary contains the test helper %s", dep)
			}
			for _, m := range leftOut {
				if strings.HasPrefix(dep, m) {
					t.Errorf("the binary contains %s (test/importgraph/thirdparty_test.go: leftOut)", dep)
				}
			}
		}
		return
	}
	t.Fatal("cmd/beamclaw not listed")
}
