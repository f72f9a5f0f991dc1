package skill

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"go.yaml.in/yaml/v3"
)

// FileName is the name of a skill's file inside its directory.
const FileName = "SKILL.md"

// MaxSize caps a SKILL.md file.
const MaxSize = 256 << 10

// Source says where a skill was found; later sources take precedence.
type Source uint8

// Skill sources, lowest precedence first.
const (
	SourceBundled Source = iota // embedded in the binary
	SourceGlobal                // $BEAMCLAW_HOME/skills/<name>/SKILL.md
	SourceAgent                 // $BEAMCLAW_HOME/agents/<agent>/skills/<name>/SKILL.md
)

func (s Source) String() string {
	switch s {
	case SourceBundled:
		return "bundled"
	case SourceGlobal:
		return "global"
	}
	return "agent"
}

// Skill is one parsed SKILL.md.
type Skill struct {
	Name        string
	Description string
	Homepage    string
	Emoji       string
	Requires    Requires
	Install     []InstallSpec
	// Metadata is the front matter's metadata object as JSON (nil when
	// absent), for display.
	Metadata json.RawMessage
	// Body is the markdown after the front matter; Content the whole file.
	Body    string
	Content string

	Source Source
	// Path is the file's path on disk, or "bundled:<name>/SKILL.md" for a
	// skill embedded in the binary (the skill tool reads any of them).
	Path string
	// Flags are the security scan's findings (see Scan); empty when clean.
	Flags []string
	// Status is the eligibility of the skill on this machine; Discover
	// fills it in.
	Status Status
	// Allowed marks a flagged skill that the configuration lets into the
	// system prompt anyway.
	Allowed bool
}

// Requires lists what a skill needs to be usable.
type Requires struct {
	Bins    []string // every one must be on PATH
	AnyBins []string // at least one must be on PATH
	Env     []string // every one must be set and non-empty
	OS      []string // runtime.GOOS values; empty means any
}

// InstallSpec is one declared way to install a skill's dependencies.
type InstallSpec struct {
	Kind    string   // apt, brew, npm, go, pip or uv
	Package string   // the package, formula or module to install
	Bins    []string // the binaries it provides
	Label   string   // optional human description
	OS      []string // where this spec applies; empty means any
}

// frontMatter is the YAML header of a SKILL.md. Unknown keys are allowed:
// other agents add their own.
type frontMatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Homepage    string `yaml:"homepage"`
	Metadata    any    `yaml:"metadata"`
}

// Parse reads a SKILL.md: a YAML front matter between "---" lines with at
// least name and description, then a markdown body. Errors are
// KindInvalid. Path, Source, Status and Flags are left for the caller
// (Discover fills them; Flags via Scan).
func Parse(data []byte) (Skill, error) {
	const op = "skill.Parse"
	if len(data) > MaxSize {
		return Skill{}, beamclaw.E(op, beamclaw.KindTooLarge, "SKILL.md is larger than 256 KiB", nil)
	}
	head, body, err := splitFrontMatter(data)
	if err != nil {
		return Skill{}, beamclaw.E(op, beamclaw.KindInvalid, err.Error(), nil)
	}
	var fm frontMatter
	if err := yaml.Unmarshal(head, &fm); err != nil {
		return Skill{}, beamclaw.E(op, beamclaw.KindInvalid, "front matter is not valid YAML", err)
	}
	s := Skill{
		Name:        strings.TrimSpace(fm.Name),
		Description: strings.Join(strings.Fields(fm.Description), " "),
		Homepage:    strings.TrimSpace(fm.Homepage),
		Body:        body,
		Content:     string(data),
	}
	if !beamclaw.IsName(s.Name) {
		return Skill{}, beamclaw.E(op, beamclaw.KindInvalid,
			"name must be 1-64 lower-case letters, digits, '-' or '_'", nil)
	}
	if s.Description == "" {
		return Skill{}, beamclaw.E(op, beamclaw.KindInvalid, "description is required", nil)
	}
	if err := applyMetadata(&s, fm.Metadata); err != nil {
		return Skill{}, beamclaw.E(op, beamclaw.KindInvalid, "metadata is not a valid JSON object", err)
	}
	return s, nil
}

// splitFrontMatter returns the YAML between the opening and closing
// "---" lines, and the body after it.
func splitFrontMatter(data []byte) ([]byte, string, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, " \t") != "---" {
		return nil, "", errMsg("SKILL.md must start with a '---' front matter line")
	}
	var head strings.Builder
	for {
		line, more, found := strings.Cut(rest, "\n")
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			return []byte(head.String()), strings.TrimLeft(more, "\n"), nil
		}
		if !found {
			return nil, "", errMsg("front matter is not closed by a '---' line")
		}
		head.WriteString(line)
		head.WriteByte('\n')
		rest = more
	}
}

type errMsg string

func (e errMsg) Error() string { return string(e) }
