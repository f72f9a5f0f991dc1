package tool_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

func names(specs []beamclaw.ToolSpec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Def.Name
	}
	return out
}

func TestRegisterDuplicate(t *testing.T) {
	r := tool.New(tool.Options{})
	if err := r.Register(echo("echo")); err != nil {
		t.Fatal(err)
	}
	err := r.Register(echo("echo"))
	if err == nil {
		t.Fatal("duplicate registration succeeded")
	}
	var be *beamclaw.Error
	if !errors.As(err, &be) || be.Kind != beamclaw.KindConflict {
		t.Errorf("err = %v, want a KindConflict *beamclaw.Error", err)
	}
}

func TestRegisterBadName(t *testing.T) {
	r := tool.New(tool.Options{})
	for _, n := range []string{"", "has space", "slash/name", string(make([]byte, 65))} {
		if err := r.Register(echo(n)); err == nil {
			t.Errorf("Register(%q) succeeded", n)
		}
	}
}

func TestLookupAndSources(t *testing.T) {
	r := tool.New(tool.Options{})
	if err := r.Register(echo("b_builtin")); err != nil {
		t.Fatal(err)
	}
	mcp := &listSource{tools: []beamclaw.Tool{echo("a_remote"), echo("b_builtin")}}
	r.AddSource("mcp:one", mcp)

	if got := names(r.Specs("")); !cmp.Equal(got, []string{"a_remote", "b_builtin"}) {
		t.Errorf("Specs = %v", got)
	}
	if _, ok := r.Lookup("a_remote"); !ok {
		t.Error("a_remote not found")
	}
	// The source's list changes at run time; lookups see it at once.
	mcp.tools = []beamclaw.Tool{echo("c_new")}
	if _, ok := r.Lookup("a_remote"); ok {
		t.Error("a_remote still found after the source dropped it")
	}
	if _, ok := r.Lookup("c_new"); !ok {
		t.Error("c_new not found")
	}
	r.RemoveSource("mcp:one")
	if _, ok := r.Lookup("c_new"); ok {
		t.Error("c_new found after RemoveSource")
	}
	if got := names(r.Specs("")); !cmp.Equal(got, []string{"b_builtin"}) {
		t.Errorf("Specs after remove = %v", got)
	}
}

func TestRegistryConcurrent(t *testing.T) {
	r := tool.New(tool.Options{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 50 {
				r.AddSource("s", &listSource{tools: []beamclaw.Tool{echo("x")}})
				_, _ = r.Lookup("x")
				_ = r.Specs("")
				if j%10 == 0 && i == 0 {
					r.RemoveSource("s")
				}
			}
		})
	}
	wg.Wait()
}

// A name offered twice is listed once, with the spec Lookup resolves to:
// the registered tool's, then the first source's.
func TestSpecsListTheToolLookupFinds(t *testing.T) {
	r := tool.New(tool.Options{})
	mine := echo("shared")
	mine.spec.Def.Description = "registered"
	if err := r.Register(mine); err != nil {
		t.Fatal(err)
	}
	first, second := echo("shared"), echo("shared")
	first.spec.Def.Description, second.spec.Def.Description = "first source", "second source"
	other1, other2 := echo("both"), echo("both")
	other1.spec.Def.Description, other2.spec.Def.Description = "from a", "from b"
	r.AddSource("a", &listSource{tools: []beamclaw.Tool{first, other1}})
	r.AddSource("b", &listSource{tools: []beamclaw.Tool{second, other2}})
	got := map[string]string{}
	for _, s := range r.Specs("") {
		if _, dup := got[s.Def.Name]; dup {
			t.Errorf("%s listed twice", s.Def.Name)
		}
		got[s.Def.Name] = s.Def.Description
		found, _ := r.Lookup(s.Def.Name)
		if found.Spec().Def.Description != s.Def.Description {
			t.Errorf("%s: listed %q, Lookup finds %q", s.Def.Name, s.Def.Description, found.Spec().Def.Description)
		}
	}
	if !cmp.Equal(got, map[string]string{"shared": "registered", "both": "from a"}) {
		t.Errorf("Specs = %v", got)
	}
}
