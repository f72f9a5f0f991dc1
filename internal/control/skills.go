package control

import (
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/skill"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Skills is what the skills route needs of the agents (*agent.Runtime):
// the catalog an agent sees, with each skill's eligibility here.
type Skills interface {
	Catalog(agentID string) (skill.Catalog, error)
}

// SkillWire is a skill in its wire form.
func SkillWire(s skill.Skill) protocol.Skill {
	return protocol.Skill{Name: s.Name, Description: s.Description, Emoji: s.Emoji, Homepage: s.Homepage,
		Source: s.Source.String(), Path: s.Path, Eligible: s.Status.Eligible, Missing: s.Status.Missing,
		Flags: s.Flags, Installable: len(s.Install) > 0}
}

// CatalogWire is an agent's skill catalog in its wire form.
func CatalogWire(agent string, cat skill.Catalog) protocol.SkillCatalog {
	out := protocol.SkillCatalog{Agent: agent, Skills: make([]protocol.Skill, 0, len(cat.Skills))}
	for _, s := range cat.Skills {
		out.Skills = append(out.Skills, SkillWire(s))
	}
	for _, p := range cat.Problems {
		out.Problems = append(out.Problems, p.Error())
	}
	return out
}

// skillsList answers the skills an agent (?agent, default the default
// agent) sees.
func (c *handlers) skillsList(w http.ResponseWriter, r *http.Request) {
	if c.skills == nil {
		writeError(w, http.StatusNotFound, "this daemon serves no skills")
		return
	}
	agent := r.URL.Query().Get("agent")
	if agent == "" {
		agent = c.defaultAgent
	}
	cat, err := c.skills.Catalog(agent)
	if err != nil {
		writeError(w, agentStatus(err), beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, CatalogWire(agent, cat))
}
