package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// UsageBackend reports the usage ledger.
type UsageBackend interface {
	Usage(ctx context.Context, by string, since time.Time) (protocol.UsageReport, error)
}

func (a *app) newUsageCmd() *cobra.Command {
	var by, since string
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Tokens and cost of every model call, by agent, user, day, session, origin, model or provider",
		Long: "Every model call is in the usage ledger: tokens in, out and cached (estimated as bytes / 4,\n" +
			"and counted as such, when a provider reports none), the cost by core.costs.rates, and whose\n" +
			"it was (session, user, agent, channel, origin: interactive, heartbeat, job, a2a, maintenance).",
		Example: "  beamclaw usage\n  beamclaw usage --by day --since 7d\n  beamclaw usage --by origin --since 2026-11-01 --json",
		Args:    cobra.NoArgs,
	}
	cmd = shows(a, cmd, "print as JSON",
		func(cmd *cobra.Command, _ []string) (protocol.UsageReport, error) {
			t, err := parseSince(since, time.Now())
			if err != nil {
				return protocol.UsageReport{}, err
			}
			return a.backend().Usage(cmd.Context(), by, t)
		},
		func(rep protocol.UsageReport) error {
			if len(rep.Rows) == 0 {
				fmt.Fprintln(a.stdout, "no model calls recorded")
				return nil
			}
			t := newTable(a.stdout, strings.ToUpper(rep.By), "CALLS", "IN", "OUT", "CACHED", "USD", "NOTE")
			for _, r := range append(rep.Rows, rep.Total) {
				t.row(r.Key, strconv.Itoa(r.Calls), strconv.FormatInt(r.In, 10), strconv.FormatInt(r.Out, 10),
					strconv.FormatInt(r.Cached, 10), fmt.Sprintf("%.4f", r.USD), usageNote(r))
			}
			return t.flush()
		})
	cmd.Flags().StringVar(&by, "by", "agent", "group by agent, user, day, session, origin, model or provider")
	cmd.Flags().StringVar(&since, "since", "", "only calls since a date (2026-11-01), a time (RFC 3339) or an age (24h, 7d)")
	return cmd
}

func usageNote(r protocol.UsageRow) string {
	var notes []string
	if r.Estimated > 0 {
		notes = append(notes, strconv.Itoa(r.Estimated)+" estimated")
	}
	if r.Unpriced > 0 {
		notes = append(notes, strconv.Itoa(r.Unpriced)+" without a rate")
	}
	return orDash(strings.Join(notes, ", "))
}

// parseSince reads --since: "" (everything), an age (24h, 7d), a date or
// an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	switch {
	case s == "":
		return time.Time{}, nil
	case strings.HasSuffix(s, "d"):
		if n, err := strconv.Atoi(strings.TrimSuffix(s, "d")); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a date (2026-11-01), an RFC 3339 time or an age (24h, 7d)", s)
}
