package builtin

import (
	"context"
	"errors"
	"fmt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// SkillReader returns the instructions (the SKILL.md) of a skill an agent
// may use; the daemon adapts internal/skill to it.
type SkillReader interface {
	SkillText(ctx context.Context, agent, name string) (string, error)
}

// SkillOptions configure the skill tool.
type SkillOptions struct {
	Reader SkillReader // required; Defaults leaves the tool out without it
}

const skillSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 1, "maxLength": 64}
  },
  "required": ["name"],
  "additionalProperties": false
}`

// SkillTool is the skill tool: it loads one of the agent's skills.
type SkillTool struct{ opts SkillOptions }

var _ beamclaw.Tool = (*SkillTool)(nil)

// NewSkill returns the skill tool.
func NewSkill(opts SkillOptions) *SkillTool { return &SkillTool{opts: opts} }

// Spec implements beamclaw.Tool: reading instructions needs no approval.
func (t *SkillTool) Spec() beamclaw.ToolSpec {
	return spec("skill", "Load a skill's instructions (see # Skills), then follow them.",
		skillSchema, false, beamclaw.ReadOnly, beamclaw.RiskLow)
}

// Execute implements beamclaw.Tool.
func (t *SkillTool) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	var a struct {
		Name string `json:"name"`
	}
	if err := decodeArgs("skill", inv.Args, &a); err != nil {
		return "", err
	}
	if t.opts.Reader == nil {
		return "", errors.New("skill: no skills are configured")
	}
	text, err := t.opts.Reader.SkillText(ctx, inv.AgentID, a.Name)
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", a.Name, err)
	}
	return text, nil
}
