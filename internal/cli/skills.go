package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// SkillsBackend discovers, shows and installs skills (no daemon needed).
type SkillsBackend interface {
	SkillsList(agent string) (protocol.SkillCatalog, error)
	SkillShow(agent, name string) (protocol.Skill, string, error)
	// SkillInstall plans the install, calls confirm with the plan (not
	// when it has no step) and runs it when confirm agrees.
	SkillInstall(ctx context.Context, agent, name string,
		confirm func(protocol.InstallPlan) bool, out, errOut io.Writer) (protocol.InstallPlan, error)
}

func (a *app) newSkillsCmd() *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:     "skills",
		Example: "  beamclaw skills list\n  beamclaw skills show weather\n  beamclaw skills install github --agent coder",
		Short:   "List, check, show or install SKILL.md skills",
		Long: "Skills come from the binary (bundled), $BEAMCLAW_HOME/skills (global) and\n" +
			"$BEAMCLAW_HOME/agents/NAME/skills (agent); a later source wins by name. Eligible skills\n" +
			"(their binaries, environment variables and OS present) are offered to the agent.",
	}
	cmd.PersistentFlags().StringVar(&agent, "agent", "", "the agent whose skills to use (default core.default_agent)")
	_ = cmd.RegisterFlagCompletionFunc("agent", a.completeAgents)
	cmd.AddCommand(a.newSkillsListCmd(&agent), a.newSkillsStatusCmd(&agent),
		a.newSkillsShowCmd(&agent), a.newSkillsInstallCmd(&agent))
	return cmd
}

func (a *app) skillCatalog(agent string) (protocol.SkillCatalog, error) {
	cat, err := a.backend().SkillsList(agent)
	if err != nil {
		return cat, err
	}
	for _, p := range cat.Problems {
		fmt.Fprintln(a.stderr, "warning: skipped", p)
	}
	return cat, nil
}

func (a *app) newSkillsListCmd(agent *string) *cobra.Command {
	return shows(a, &cobra.Command{
		Use:   "list",
		Short: "List the skills with their source, eligibility and security flags",
		Args:  cobra.NoArgs,
	}, "print the catalog as JSON",
		func(*cobra.Command, []string) (protocol.SkillCatalog, error) { return a.skillCatalog(*agent) },
		func(cat protocol.SkillCatalog) error {
			if len(cat.Skills) == 0 {
				fmt.Fprintln(a.stdout, "no skills found")
				return nil
			}
			t := newTable(a.stdout, "NAME", "SOURCE", "STATUS", "FLAGS", "DESCRIPTION")
			for _, s := range cat.Skills {
				flags := "-"
				if len(s.Flags) > 0 {
					flags = fmt.Sprintf("%d flagged", len(s.Flags))
				}
				t.row(s.Name, s.Source, skillState(s), flags, oneLine(s.Description, 60))
			}
			return t.flush()
		})
}

func skillState(s protocol.Skill) string {
	if s.Eligible {
		return "eligible"
	}
	return fmt.Sprintf("missing %d", len(s.Missing))
}

func (a *app) newSkillsStatusCmd(agent *string) *cobra.Command {
	return shows(a, &cobra.Command{
		Use:   "status",
		Short: "Show what each skill is missing on this machine, and its security flags",
		Args:  cobra.NoArgs,
	}, "print the catalog as JSON",
		func(*cobra.Command, []string) (protocol.SkillCatalog, error) { return a.skillCatalog(*agent) },
		a.printSkillStatus)
}

func (a *app) printSkillStatus(cat protocol.SkillCatalog) error {
	ready := 0
	for _, s := range cat.Skills {
		mark := "missing"
		if s.Eligible {
			mark, ready = "ok", ready+1
		}
		fmt.Fprintf(a.stdout, "%-8s %s (%s)\n", mark, s.Name, s.Source)
		for _, m := range s.Missing {
			fmt.Fprintf(a.stdout, "         - %s\n", m)
		}
		for _, f := range s.Flags {
			fmt.Fprintf(a.stdout, "         ! flagged: %s\n", f)
		}
		if !s.Eligible && s.Installable {
			fmt.Fprintf(a.stdout, "         fix: beamclaw skills install %s\n", s.Name)
		}
	}
	fmt.Fprintf(a.stdout, "%d of %d skills eligible for agent %s\n", ready, len(cat.Skills), cat.Agent)
	return nil
}

// skillText is a skill with its SKILL.md, as `skills show --json` prints it.
type skillText struct {
	protocol.Skill
	Content string `json:"content"`
}

func (a *app) newSkillsShowCmd(agent *string) *cobra.Command {
	return shows(a, &cobra.Command{
		Use:               "show NAME",
		ValidArgsFunction: a.completeSkills,
		Short:             "Print a skill's SKILL.md",
		Args:              cobra.ExactArgs(1),
	}, "print the skill and its content as JSON",
		func(_ *cobra.Command, args []string) (skillText, error) {
			s, content, err := a.backend().SkillShow(*agent, args[0])
			return skillText{s, content}, err
		},
		func(s skillText) error {
			fmt.Fprintf(a.stderr, "# %s (%s, %s)\n", s.Path, s.Source, skillState(s.Skill))
			_, err := io.WriteString(a.stdout, s.Content)
			return err
		})
}

func (a *app) newSkillsInstallCmd(agent *string) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:               "install NAME",
		ValidArgsFunction: a.completeSkills,
		Short:             "Install a skill's declared dependencies (shows the commands and asks; --yes to skip)",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			agreed := false
			plan, err := a.backend().SkillInstall(cmd.Context(), *agent, args[0],
				func(p protocol.InstallPlan) bool {
					a.printPlan(p)
					agreed = yes || a.confirm("Run these commands?")
					return agreed
				}, a.stdout, a.stderr)
			if err != nil {
				return err
			}
			switch {
			case len(plan.Steps) == 0:
				fmt.Fprintf(a.stdout, "nothing to install for %s\n", plan.Skill)
				for _, s := range plan.Skipped {
					fmt.Fprintf(a.stdout, "  skipped %s\n", s)
				}
				return nil
			case !agreed:
				return errCancelled
			}
			fmt.Fprintf(a.stdout, "installed the dependencies of %s; check with `beamclaw skills status`\n", plan.Skill)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func (a *app) printPlan(p protocol.InstallPlan) {
	fmt.Fprintf(a.stdout, "To install the dependencies of %s, beamclaw will run:\n", p.Skill)
	for i, st := range p.Steps {
		label := st.Kind + " " + st.Package
		if st.Label != "" {
			label += ": " + st.Label
		}
		fmt.Fprintf(a.stdout, "  %d. %s    (%s)\n", i+1, strings.Join(st.Argv, " "), label)
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(a.stdout, "  skipped %s\n", s)
	}
}
