package skill

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Skill
	}{
		{
			name: "minimal",
			in:   "---\nname: notes\ndescription: Keep notes.\n---\n\n# Notes\nBody.\n",
			want: Skill{Name: "notes", Description: "Keep notes.", Body: "# Notes\nBody.\n"},
		},
		{
			name: "crlf and bom",
			in:   "\xef\xbb\xbf---\r\nname: notes\r\ndescription: Keep notes.\r\n---\r\nBody.\r\n",
			want: Skill{Name: "notes", Description: "Keep notes.", Body: "Body.\n"},
		},
		{
			name: "folded description and homepage",
			in:   "---\nname: gh\ndescription: >\n  Use GitHub\n  from the shell.\nhomepage: https://cli.github.com\nlicense: MIT\n---\n",
			want: Skill{Name: "gh", Description: "Use GitHub from the shell.", Homepage: "https://cli.github.com"},
		},
		{
			name: "beamclaw metadata as a flow mapping",
			in: `---
name: gh
description: GitHub.
metadata: {"beamclaw": {"emoji": "🐙", "requires": {"bins": ["gh"], "env": ["GH_TOKEN"], "os": ["linux", "macos"]}, "install": [{"kind": "apt", "package": "gh", "bins": ["gh"]}]}}
---
`,
			want: Skill{
				Name: "gh", Description: "GitHub.", Emoji: "🐙",
				Requires: Requires{Bins: []string{"gh"}, Env: []string{"GH_TOKEN"}, OS: []string{"linux", "macos"}},
				Install:  []InstallSpec{{Kind: "apt", Package: "gh", Bins: []string{"gh"}}},
			},
		},
		{
			name: "openclaw metadata as a JSON string",
			in: `---
name: weather
description: Weather.
metadata: '{"openclaw": {"emoji": "☔", "os": ["darwin"], "requires": {"anyBins": ["curl", "wget"]}, "install": [{"id": "brew", "kind": "brew", "formula": "curl", "bins": ["curl"], "label": "Install curl"}]}}'
---
`,
			want: Skill{
				Name: "weather", Description: "Weather.", Emoji: "☔",
				Requires: Requires{AnyBins: []string{"curl", "wget"}, OS: []string{"darwin"}},
				Install:  []InstallSpec{{Kind: "brew", Package: "curl", Bins: []string{"curl"}, Label: "Install curl"}},
			},
		},
		{
			name: "multi-line JSON with a trailing comma",
			in:   "---\nname: tool\ndescription: A tool.\nmetadata:\n  {\n    \"openclaw\":\n      {\n        \"requires\": { \"bins\": \"jq\", \"env\": [\"API_KEY\"] },\n      },\n  }\n---\n",
			want: Skill{
				Name: "tool", Description: "A tool.",
				Requires: Requires{Bins: []string{"jq"}, Env: []string{"API_KEY"}},
			},
		},
		{
			name: "unwrapped metadata in YAML",
			in:   "---\nname: go-dev\ndescription: Go.\nmetadata:\n  emoji: 🐹\n  install:\n    - kind: go\n      module: golang.org/x/tools/gopls\n---\n",
			want: Skill{
				Name: "go-dev", Description: "Go.", Emoji: "🐹",
				Install: []InstallSpec{{Kind: "go", Package: "golang.org/x/tools/gopls"}},
			},
		},
	}
	ignore := cmpopts.IgnoreFields(Skill{}, "Content", "Metadata")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, ignore, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
			if got.Content != tt.in {
				t.Error("Content is not the whole file")
			}
			if got.Metadata != nil && !json.Valid(got.Metadata) {
				t.Errorf("Metadata is not JSON: %s", got.Metadata)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		kind beamclaw.Kind
	}{
		{"empty", "", beamclaw.KindInvalid},
		{"no front matter", "# Just markdown\n", beamclaw.KindInvalid},
		{"unclosed", "---\nname: x\ndescription: y\n", beamclaw.KindInvalid},
		{"bad yaml", "---\nname: [x\ndescription: y\n---\n", beamclaw.KindInvalid},
		{"missing name", "---\ndescription: y\n---\n", beamclaw.KindInvalid},
		{"bad name", "---\nname: ../etc\ndescription: y\n---\n", beamclaw.KindInvalid},
		{"missing description", "---\nname: x\n---\n", beamclaw.KindInvalid},
		{"metadata not json", "---\nname: x\ndescription: y\nmetadata: 'not json'\n---\n", beamclaw.KindInvalid},
		{"metadata a list", "---\nname: x\ndescription: y\nmetadata: [1, 2]\n---\n", beamclaw.KindInvalid},
		{"requires wrong type", "---\nname: x\ndescription: y\nmetadata: {\"requires\": {\"bins\": 3}}\n---\n", beamclaw.KindInvalid},
		{"too large", "---\nname: x\ndescription: y\n---\n" + strings.Repeat("a", MaxSize), beamclaw.KindTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			if err == nil || beamclaw.KindOf(err) != tt.kind {
				t.Fatalf("Parse = %v, want kind %v", err, tt.kind)
			}
		})
	}
}

func FuzzParseSkill(f *testing.F) {
	f.Add([]byte(skillText("a", "b", "", "body")))
	f.Add([]byte("---\nname: x\ndescription: y\nmetadata: '{\"openclaw\": {\"requires\": {\"bins\": [\"gh\"]}}}'\n---\n"))
	f.Add([]byte("---\nname: x\ndescription: y\nmetadata: {\"beamclaw\": {\"install\": [{\"kind\": \"go\", \"module\": \"m\"}]}}\n---\n"))
	f.Add([]byte("---\r\nname: x\r\n...\r\n"))
	f.Add([]byte("no front matter"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		if !beamclaw.IsName(s.Name) || s.Description == "" {
			t.Fatalf("Parse accepted name %q description %q", s.Name, s.Description)
		}
		if s.Metadata != nil && !json.Valid(s.Metadata) {
			t.Fatalf("invalid metadata JSON %q", s.Metadata)
		}
		_ = Scan(s.Content)
		_ = PlanInstall(s, fakeEnv("linux", []string{"apt-get", "go"}, nil))
	})
}
