package workspace

import (
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"simple", "default", true},
		{"digits and dashes", "agent-2_b", true},
		{"starts with digit", "7up", true},
		{"max length", strings.Repeat("a", 64), true},
		{"empty", "", false},
		{"too long", strings.Repeat("a", 65), false},
		{"dot dot", "..", false},
		{"traversal", "../x", false},
		{"slash", "a/b", false},
		{"backslash", `a\b`, false},
		{"absolute", "/etc", false},
		{"upper case", "Default", false},
		{"leading dash", "-x", false},
		{"leading underscore", "_x", false},
		{"dot", "a.b", false},
		{"space", "a b", false},
		{"nul", "a\x00", false},
		{"newline", "a\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidName(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("ValidName(%q) = %v, want ok=%v", tt.in, err, tt.ok)
			}
			if err != nil && beamclaw.KindOf(err) != beamclaw.KindInvalid {
				t.Errorf("kind = %v, want invalid", beamclaw.KindOf(err))
			}
		})
	}
}

func TestValidFile(t *testing.T) {
	for _, f := range Files() {
		if err := ValidFile(f); err != nil {
			t.Errorf("ValidFile(%q) = %v", f, err)
		}
	}
	for _, f := range []string{"", "memory.md", "../MEMORY.md", "memory/2026-01-01.md", "/MEMORY.md"} {
		if beamclaw.KindOf(ValidFile(f)) != beamclaw.KindInvalid {
			t.Errorf("ValidFile(%q) accepted", f)
		}
	}
}

func TestTemplatesAreFilled(t *testing.T) {
	for _, f := range Files() {
		content, err := Template(f)
		if err != nil {
			t.Fatalf("Template(%q): %v", f, err)
		}
		if strings.TrimSpace(content) == "" {
			t.Errorf("template %s is empty", f)
		}
	}
}
