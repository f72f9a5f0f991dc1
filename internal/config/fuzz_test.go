package config

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzLoad feeds arbitrary bytes to the loader: it must never panic, every
// problem must be located (an *Error), and an accepted config must survive
// Marshal → Parse unchanged. Seeds: testdata/fuzz/FuzzLoad and the example.
func FuzzLoad(f *testing.F) {
	if b, err := os.ReadFile(examplePath); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		"", "core: {}\n", "gateway:\n  http:\n    adr: x\n",
		"core:\n  providers:\n    a: &x {model: m, base_url: http://h}\n    b: *x\n",
		"mcp:\n  servers:\n    - {name: a, command: b, env: {K: {env: V}}}\n",
		"core: {shutdown_timeout: 1h}\n", "[1, 2]\n", "obs: !!binary aGVsbG8=\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("fuzz.yaml", data)
		if err != nil {
			for _, p := range Problems(err) {
				if p.File != "fuzz.yaml" {
					t.Fatalf("problem without file: %v", p)
				}
			}
			return
		}
		out, err := cfg.Marshal()
		if err != nil {
			t.Fatalf("Marshal of an accepted config: %v", err)
		}
		back, err := Parse("again.yaml", out)
		if err != nil {
			t.Fatalf("Parse(Marshal()) = %v\n%s", err, out)
		}
		if diff := cmp.Diff(cfg, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip changed the config:\n%s", diff)
		}
	})
}
