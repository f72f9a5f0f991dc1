package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Shell completion of names (agents, skills, MCP servers, sessions). A
// completion that cannot ask (no config, no daemon) offers nothing rather
// than failing the shell.

func noFiles(names []string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return names, cobra.ShellCompDirectiveNoFileComp
}

func (a *app) completeAgents(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	agents, err := a.backend().AgentList()
	if err != nil {
		return noFiles(nil)
	}
	var out []string
	for _, ag := range agents {
		if strings.HasPrefix(ag.Name, prefix) {
			out = append(out, ag.Name)
		}
	}
	return noFiles(out)
}

// completeAgentArg completes the first argument with an agent name.
func (a *app) completeAgentArg(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return noFiles(nil)
	}
	return a.completeAgents(cmd, args, prefix)
}

func (a *app) completeSkills(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return noFiles(nil)
	}
	agent, _ := cmd.Flags().GetString("agent")
	cat, err := a.backend().SkillsList(agent)
	if err != nil {
		return noFiles(nil)
	}
	var out []string
	for _, s := range cat.Skills {
		if strings.HasPrefix(s.Name, prefix) {
			out = append(out, s.Name+"\t"+oneLine(s.Description, 60))
		}
	}
	return noFiles(out)
}

func (a *app) completeMCPServers(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return noFiles(nil)
	}
	list, err := a.backend().MCPList(cmd.Context())
	if err != nil {
		return noFiles(nil)
	}
	var out []string
	for _, s := range list.Servers {
		if strings.HasPrefix(s.Name, prefix) {
			out = append(out, s.Name)
		}
	}
	return noFiles(out)
}

func (a *app) completeSessions(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return noFiles(nil)
	}
	list, err := a.backend().SessionsList(cmd.Context(), protocol.SessionQuery{Archived: true})
	if err != nil {
		return noFiles(nil)
	}
	var out []string
	for _, s := range list.Sessions {
		if id := shortID(s.ID); strings.HasPrefix(id, prefix) {
			out = append(out, id+"\t"+oneLine(s.Agent+": "+s.Title, 60))
		}
	}
	return noFiles(out)
}
