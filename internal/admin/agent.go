package admin

import (
	"fmt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/skill"
	"github.com/beamclaw/beamclaw-go/internal/workspace"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/skills"
)

// The agent commands work on files only, so they run with or without a
// daemon and do not need a valid config: only BEAMCLAW_HOME.

func (a *Admin) workspaces() (*workspace.Store, config.Paths, error) {
	p, err := a.paths()
	if err != nil {
		return nil, p, err
	}
	return workspace.New(p.AgentsDir, nil), p, nil
}

// AgentCreate makes a new agent workspace from the default templates.
func (a *Admin) AgentCreate(name string) (protocol.Agent, error) {
	ws, _, err := a.workspaces()
	if err != nil {
		return protocol.Agent{}, err
	}
	if err := ws.Create(name); err != nil {
		return protocol.Agent{}, control.Plain(err)
	}
	return agentShow(ws, name)
}

// AgentList describes every agent, sorted by name.
func (a *Admin) AgentList() ([]protocol.Agent, error) {
	ws, _, err := a.workspaces()
	if err != nil {
		return nil, err
	}
	list, err := ws.List()
	if err != nil {
		return nil, control.Plain(err)
	}
	out := make([]protocol.Agent, 0, len(list))
	for _, ag := range list {
		out = append(out, control.AgentWire(ag))
	}
	return out, nil
}

// AgentShow describes one agent.
func (a *Admin) AgentShow(name string) (protocol.Agent, error) {
	ws, _, err := a.workspaces()
	if err != nil {
		return protocol.Agent{}, err
	}
	return agentShow(ws, name)
}

func agentShow(ws *workspace.Store, name string) (protocol.Agent, error) {
	a, err := ws.Get(name)
	if err != nil {
		return protocol.Agent{}, control.Plain(err)
	}
	return control.AgentWire(a), nil
}

// AgentPrompt assembles the agent's system prompt as the loop would
// (workspace files, daily logs, eligible skills), without recalled memory.
func (a *Admin) AgentPrompt(name string) (string, error) {
	ws, paths, err := a.workspaces()
	if err != nil {
		return "", err
	}
	if ok, err := ws.Exists(name); err != nil || !ok {
		if err == nil {
			err = beamclaw.E("agent", beamclaw.KindNotFound, "no agent named "+name, nil)
		}
		return "", control.Plain(err)
	}
	cat, err := skill.Discover(skill.Options{Bundled: skills.FS, GlobalDir: paths.SkillsDir,
		AgentDir: paths.AgentDir(name) + "/skills"})
	if err != nil {
		return "", fmt.Errorf("skills: %w", err)
	}
	p, err := ws.SystemPrompt(name, workspace.PromptExtras{Skills: skill.PromptSection(cat.Skills)})
	return p, control.Plain(err)
}

// AgentDelete removes the agent's workspace and everything in it.
func (a *Admin) AgentDelete(name string) error {
	ws, _, err := a.workspaces()
	if err != nil {
		return err
	}
	return control.Plain(ws.Delete(name))
}

// AgentRehatch restores the default templates, keeping memory/ unless all.
func (a *Admin) AgentRehatch(name string, all bool) (protocol.Agent, error) {
	ws, _, err := a.workspaces()
	if err != nil {
		return protocol.Agent{}, err
	}
	if err := ws.Rehatch(name, all); err != nil {
		return protocol.Agent{}, control.Plain(err)
	}
	return agentShow(ws, name)
}
