package admin

import (
	"context"
	"fmt"
	"io"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/skill"
	"github.com/beamclaw/beamclaw-go/internal/workspace"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/skills"
)

// skillEnv is how the skill commands look at the machine; tests replace
// LookPath and Run.
type skillEnv struct {
	machine skill.Env
	run     skill.Runner
}

// discoverSkills loads the bundled, global and agent skills as the agent
// sees them; agent "" means core.default_agent.
func (a *Admin) discoverSkills(se skillEnv, agent string) (skill.Catalog, string, error) {
	cfg, err := a.load()
	paths := cfg.Paths
	if err != nil {
		return skill.Catalog{}, "", err
	}
	if agent == "" {
		agent = cfg.Core.DefaultAgent
	}
	if err := workspace.ValidName(agent); err != nil {
		return skill.Catalog{}, "", control.Plain(err)
	}
	cat, err := skill.Discover(skill.Options{Bundled: skills.FS, GlobalDir: paths.SkillsDir,
		AgentDir: paths.AgentDir(agent) + "/skills", Env: se.machine, AllowFlagged: cfg.Core.Skills.AllowFlagged})
	if err != nil {
		return skill.Catalog{}, "", err
	}
	return cat, agent, nil
}

// SkillsList describes every skill the agent ("" = the default agent)
// sees, with its eligibility on this machine.
func (a *Admin) SkillsList(agent string) (protocol.SkillCatalog, error) {
	return a.skillsList(a.skills(nil, nil), agent)
}

func (a *Admin) skillsList(se skillEnv, agent string) (protocol.SkillCatalog, error) {
	cat, agent, err := a.discoverSkills(se, agent)
	if err != nil {
		return protocol.SkillCatalog{}, err
	}
	return control.CatalogWire(agent, cat), nil
}

// SkillShow returns the skill's description and its whole SKILL.md.
func (a *Admin) SkillShow(agent, name string) (protocol.Skill, string, error) {
	s, err := a.findSkill(a.skills(nil, nil), agent, name)
	if err != nil {
		return protocol.Skill{}, "", err
	}
	return control.SkillWire(s), s.Content, nil
}

func (a *Admin) findSkill(se skillEnv, agent, name string) (skill.Skill, error) {
	cat, agent, err := a.discoverSkills(se, agent)
	if err != nil {
		return skill.Skill{}, err
	}
	s, ok := cat.Get(name)
	if !ok {
		return skill.Skill{}, control.Plain(beamclaw.E("skills", beamclaw.KindNotFound,
			fmt.Sprintf("no skill named %q for agent %s (see `beamclaw skills list`)", name, agent), nil))
	}
	return s, nil
}

// SkillInstall plans the install of the skill's declared dependencies,
// asks confirm (skipped when the plan has no step), then runs the steps
// with their output on out and errOut. A declined plan is returned with
// no error and nothing run.
func (a *Admin) SkillInstall(ctx context.Context, agent, name string,
	confirm func(protocol.InstallPlan) bool, out, errOut io.Writer) (protocol.InstallPlan, error) {
	return a.skillInstall(ctx, a.skills(out, errOut), agent, name, confirm)
}

func (a *Admin) skillInstall(ctx context.Context, se skillEnv, agent, name string,
	confirm func(protocol.InstallPlan) bool) (protocol.InstallPlan, error) {
	s, err := a.findSkill(se, agent, name)
	if err != nil {
		return protocol.InstallPlan{}, err
	}
	plan := skill.PlanInstall(s, se.machine)
	wire := planWire(plan)
	if len(plan.Steps) == 0 || !confirm(wire) {
		return wire, nil
	}
	if err := skill.Install(ctx, plan, se.run); err != nil {
		return wire, err
	}
	return wire, nil
}

func planWire(p skill.Plan) protocol.InstallPlan {
	out := protocol.InstallPlan{Skill: p.Skill, Steps: make([]protocol.InstallStep, 0, len(p.Steps)), Skipped: p.Skipped}
	for _, st := range p.Steps {
		out.Steps = append(out.Steps, protocol.InstallStep{Kind: st.Spec.Kind, Package: st.Spec.Package,
			Label: st.Spec.Label, Argv: st.Argv})
	}
	return out
}
