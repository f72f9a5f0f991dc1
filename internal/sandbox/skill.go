package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// SkillType is the front-matter type of a saved sandbox script.
const SkillType = "sandbox_script"

// ScriptSkill is a script saved as a skill: <dir>/<name>/SKILL.md with
// "type: sandbox_script" in its front matter and the code in a fenced
// block, so that internal/skill discovers it like any skill and exec
// runs it again by name.
type ScriptSkill struct {
	Name        string
	Description string
	Language    string // LangPython or LangSh
	Code        string
	Path        string // the SKILL.md (set by Save and Load)
}

// SaveScriptSkill writes s to dir/<name>/SKILL.md and returns its path.
// It replaces an earlier sandbox script of that name, never another kind
// of skill.
func SaveScriptSkill(dir string, s ScriptSkill) (string, error) {
	const op = "sandbox.SaveScriptSkill"
	switch {
	case !beamclaw.IsName(s.Name):
		return "", beamclaw.E(op, beamclaw.KindInvalid, "skill name must be 1-64 lower-case letters, digits, '-' or '_'", nil)
	case s.Language != LangPython && s.Language != LangSh:
		return "", beamclaw.E(op, beamclaw.KindInvalid, `language must be "python" or "sh"`, nil)
	case strings.TrimSpace(s.Code) == "":
		return "", beamclaw.E(op, beamclaw.KindInvalid, "code is empty", nil)
	}
	desc := strings.Join(strings.Fields(s.Description), " ")
	if desc == "" {
		desc = "A saved " + s.Language + " script for the sandbox."
	}
	path := filepath.Join(dir, s.Name, "SKILL.md")
	if old, err := os.ReadFile(path); err == nil {
		if _, perr := parseScriptSkill(old); perr != nil {
			return "", beamclaw.E(op, beamclaw.KindConflict,
				fmt.Sprintf("a skill named %s exists and is not a sandbox script", s.Name), nil)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	if err := writeAtomic(path, []byte(renderScriptSkill(s.Name, desc, s.Language, s.Code))); err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	return path, nil
}

func renderScriptSkill(name, desc, lang, code string) string {
	quoted, _ := json.Marshal(desc) // a JSON string is a YAML scalar
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\ntype: %s\nlanguage: %s\n", name, quoted, SkillType, lang)
	fmt.Fprintf(&b, "metadata: {\"beamclaw\": {\"type\": %q, \"language\": %q}}\n---\n\n", SkillType, lang)
	fmt.Fprintf(&b, "# %s\n\n%s\n\nRun it in the sandbox with the `exec` tool: `{\"skill\": %q}`.\n\n", name, desc, name)
	fmt.Fprintf(&b, "%s%s\n%s", fence, lang, code)
	if !strings.HasSuffix(code, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(fence + "\n")
	return b.String()
}

// LoadScriptSkill reads a sandbox_script SKILL.md.
func LoadScriptSkill(path string) (ScriptSkill, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ScriptSkill{}, fmt.Errorf("read skill: %w", err)
	}
	s, err := parseScriptSkill(data)
	if err != nil {
		return ScriptSkill{}, beamclaw.E("sandbox.LoadScriptSkill", beamclaw.KindInvalid, err.Error()+": "+path, nil)
	}
	s.Path = path
	return s, nil
}

// FindScriptSkill looks name up in dirs, in order.
func FindScriptSkill(dirs []string, name string) (ScriptSkill, error) {
	const op = "sandbox.FindScriptSkill"
	if !beamclaw.IsName(name) {
		return ScriptSkill{}, beamclaw.E(op, beamclaw.KindInvalid, "skill name must be 1-64 lower-case letters, digits, '-' or '_'", nil)
	}
	for _, d := range dirs {
		path := filepath.Join(d, name, "SKILL.md")
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return LoadScriptSkill(path)
	}
	return ScriptSkill{}, beamclaw.E(op, beamclaw.KindNotFound, "no saved sandbox script named "+name, nil)
}

func parseScriptSkill(data []byte) (ScriptSkill, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return ScriptSkill{}, errors.New("SKILL.md has no front matter")
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return ScriptSkill{}, errors.New("SKILL.md's front matter is not closed")
	}
	var fm struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Type        string `yaml:"type"`
		Language    string `yaml:"language"`
	}
	if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
		return ScriptSkill{}, errors.New("SKILL.md's front matter is not valid YAML")
	}
	if fm.Type != SkillType {
		return ScriptSkill{}, errors.New("not a sandbox_script skill")
	}
	if fm.Language != LangPython && fm.Language != LangSh {
		return ScriptSkill{}, errors.New(`language must be "python" or "sh"`)
	}
	code, ok := fencedBlock(body, fm.Language)
	if !ok {
		return ScriptSkill{}, errors.New("no ```" + fm.Language + " block with the script")
	}
	return ScriptSkill{Name: fm.Name, Description: fm.Description, Language: fm.Language, Code: code}, nil
}

// fencedBlock returns the first fenced block whose info string is lang.
func fencedBlock(body, lang string) (string, bool) {
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		fence := l[:len(l)-len(strings.TrimLeft(l, "`"))]
		if len(fence) < 3 || strings.TrimSpace(l[len(fence):]) != lang {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimRight(lines[j], " ") == fence {
				return strings.Join(lines[i+1:j], "\n") + "\n", true
			}
		}
	}
	return "", false
}
