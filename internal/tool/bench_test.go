package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

func BenchmarkRegistryRun(b *testing.B) {
	r := tool.New(tool.Options{})
	t := echo("echo")
	in := inv(`{"text":"hello"}`)
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Run(b.Context(), t, in); res.IsError {
			b.Fatal(res.Content)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	s, err := tool.CompileSchema(json.RawMessage(richSchema))
	if err != nil {
		b.Fatal(err)
	}
	doc := []byte(`{"url":"x","method":"POST","count":3,"ratio":0.5,"flag":true,"argv":["a","b"],"headers":{"A":"b"},"nested":{"deep":1}}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.ValidateJSON(doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLookupWithSources(b *testing.B) {
	r := tool.New(tool.Options{})
	for _, n := range []string{"bash", "curl", "jq", "read_file"} {
		if err := r.Register(echo(n)); err != nil {
			b.Fatal(err)
		}
	}
	r.AddSource("mcp:a", &listSource{tools: []beamclaw.Tool{echo("a1"), echo("a2"), echo("a3")}})
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := r.Lookup("a3"); !ok {
			b.Fatal("not found")
		}
	}
}
