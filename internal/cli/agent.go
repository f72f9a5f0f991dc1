package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// AgentBackend manages agent workspaces (files only; no daemon needed).
type AgentBackend interface {
	AgentCreate(name string) (protocol.Agent, error)
	AgentList() ([]protocol.Agent, error)
	AgentShow(name string) (protocol.Agent, error)
	AgentPrompt(name string) (string, error)
	AgentDelete(name string) error
	AgentRehatch(name string, all bool) (protocol.Agent, error)
}

func (a *app) newAgentCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "agent",
		Example: "  beamclaw agent create coder\n  beamclaw agent list\n  beamclaw agent show coder\n  beamclaw agent delete coder --yes",
		Short:   "Create, list, show, delete or rehatch agent workspaces",
		Long: "An agent is a workspace under $BEAMCLAW_HOME/agents/NAME: the markdown files that shape its\n" +
			"system prompt (IDENTITY, SOUL, USER, TOOLS, AGENTS, BOOTSTRAP, MEMORY) and its daily logs in memory/.",
	}
	cmd.AddCommand(a.newAgentCreateCmd(), a.newAgentListCmd(), a.newAgentShowCmd(),
		a.newAgentDeleteCmd(), a.newAgentRehatchCmd())
	return cmd
}

func (a *app) newAgentCreateCmd() *cobra.Command {
	return shows(a, &cobra.Command{
		Use:   "create NAME",
		Short: "Create an agent from the default templates",
		Args:  cobra.ExactArgs(1),
	}, "print the agent as JSON",
		func(_ *cobra.Command, args []string) (protocol.Agent, error) { return a.backend().AgentCreate(args[0]) },
		func(ag protocol.Agent) error {
			fmt.Fprintf(a.stdout, "agent %s created in %s\n", ag.Name, ag.Dir)
			fmt.Fprintf(a.stdout, "edit its IDENTITY.md, SOUL.md and USER.md, or let its first conversation fill them in (BOOTSTRAP.md)\n")
			return nil
		})
}

func (a *app) newAgentListCmd() *cobra.Command {
	return shows(a, &cobra.Command{
		Use:   "list",
		Short: "List the agents",
		Args:  cobra.NoArgs,
	}, "print the agents as JSON",
		func(*cobra.Command, []string) ([]protocol.Agent, error) {
			list, err := a.backend().AgentList()
			if list == nil {
				list = []protocol.Agent{} // [] in JSON, not null
			}
			return list, err
		},
		a.printAgents)
}

func (a *app) printAgents(list []protocol.Agent) error {
	if len(list) == 0 {
		fmt.Fprintln(a.stdout, "no agents yet; create one with `beamclaw agent create NAME`")
		return nil
	}
	t := newTable(a.stdout, "NAME", "FILES", "SIZE", "DAILY LOGS", "BOOTSTRAP")
	for _, ag := range list {
		var size int64
		for _, f := range ag.Files {
			size += f.Size
		}
		t.row(ag.Name, strconv.Itoa(len(ag.Files)), humanSize(size), strconv.Itoa(len(ag.DailyLogs)), bootstrap(ag))
	}
	return t.flush()
}

func bootstrap(ag protocol.Agent) string {
	if ag.BootstrapPending {
		return "pending"
	}
	return "done"
}

func (a *app) newAgentShowCmd() *cobra.Command {
	var asJSON, prompt bool
	cmd := &cobra.Command{
		Use:               "show NAME",
		ValidArgsFunction: a.completeAgentArg,
		Short:             "Show an agent's files, or (--prompt) its assembled system prompt",
		Args:              cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if prompt {
				p, err := a.backend().AgentPrompt(args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(map[string]string{"agent": args[0], "prompt": p})
				}
				_, err = fmt.Fprintln(a.stdout, p)
				return err
			}
			ag, err := a.backend().AgentShow(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(ag)
			}
			return a.printAgent(ag)
		},
	}
	cmd.Flags().BoolVar(&prompt, "prompt", false, "print the system prompt the agent gets (workspace files, daily logs, skills)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func (a *app) printAgent(ag protocol.Agent) error {
	fmt.Fprintf(a.stdout, "agent %s\n  dir         %s\n", ag.Name, ag.Dir)
	if ag.BootstrapPending {
		fmt.Fprintln(a.stdout, "  bootstrap   pending (BOOTSTRAP.md is present: the first-run ritual has not run yet)")
	} else {
		fmt.Fprintln(a.stdout, "  bootstrap   done")
	}
	switch n := len(ag.DailyLogs); n {
	case 0:
		fmt.Fprintln(a.stdout, "  daily logs  none")
	default:
		fmt.Fprintf(a.stdout, "  daily logs  %d (%s .. %s)\n", n, ag.DailyLogs[0], ag.DailyLogs[n-1])
	}
	fmt.Fprintln(a.stdout)
	t := newTable(a.stdout, "FILE", "SIZE", "MODIFIED")
	for _, f := range ag.Files {
		t.row(f.Name, humanSize(f.Size), localTime(f.ModTime))
	}
	return t.flush()
}

func (a *app) newAgentDeleteCmd() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:               "delete NAME",
		ValidArgsFunction: a.completeAgentArg,
		Short:             "Delete an agent and everything in its workspace (asks first; --yes to skip)",
		Args:              cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			ag, err := a.backend().AgentShow(args[0])
			if err != nil {
				return err
			}
			q := fmt.Sprintf("Delete agent %s and everything in %s (%d daily logs)?", ag.Name, ag.Dir, len(ag.DailyLogs))
			if !yes && !a.confirm(q) {
				return errCancelled
			}
			if err := a.backend().AgentDelete(ag.Name); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "agent %s deleted\n", ag.Name)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func (a *app) newAgentRehatchCmd() *cobra.Command {
	var all, yes bool
	cmd := &cobra.Command{
		Use:               "rehatch NAME",
		ValidArgsFunction: a.completeAgentArg,
		Short:             "Restore an agent's default files, keeping its daily logs (--all wipes everything)",
		Long: "rehatch overwrites the agent's workspace files (IDENTITY, SOUL, USER, TOOLS, AGENTS, MEMORY)\n" +
			"with the default templates and restores BOOTSTRAP.md, so the first-run ritual runs again.\n" +
			"The daily logs in memory/ are kept unless --all, which wipes the whole workspace first.",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			q := fmt.Sprintf("Reset agent %s's files to the defaults (daily logs kept)?", args[0])
			if all {
				q = fmt.Sprintf("Wipe agent %s's whole workspace, daily logs included, and start over?", args[0])
			}
			if _, err := a.backend().AgentShow(args[0]); err != nil {
				return err
			}
			if !yes && !a.confirm(q) {
				return errCancelled
			}
			ag, err := a.backend().AgentRehatch(args[0], all)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "agent %s rehatched (%d files, %d daily logs kept)\n", ag.Name, len(ag.Files), len(ag.DailyLogs))
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also delete the daily logs and every other file in the workspace")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}
