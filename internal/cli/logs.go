package cli

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func (a *app) newLogsCmd() *cobra.Command {
	var (
		follow bool
		level  string
		since  time.Duration
		lines  int
	)
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Print the daemon's log (and follow it with -f)",
		Long: "logs prints the detached daemon's log ($BEAMCLAW_HOME/logs/beamclaw.log), filtered by level and\n" +
			"age; -f keeps printing new lines, across rotations, until Ctrl-C.",
		Example: "  beamclaw logs -n 50\n  beamclaw logs -f --level warn\n  beamclaw logs --since 1h --level error",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var min slog.Level
			if err := min.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
				return fmt.Errorf("--level %q: want debug, info, warn or error", level)
			}
			loc, err := a.backend().Locate()
			if err != nil {
				return err
			}
			f := logFilter{min: min}
			if since > 0 {
				f.after = time.Now().Add(-since)
			}
			return a.printLog(cmd.Context(), loc.LogFile, f, lines, follow)
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new lines")
	cmd.Flags().StringVar(&level, "level", "debug", "the lowest level shown: debug, info, warn or error")
	cmd.Flags().DurationVar(&since, "since", 0, "only lines of this recent past (e.g. 10m, 2h)")
	cmd.Flags().IntVarP(&lines, "lines", "n", 0, "only the last N matching lines (0 = all)")
	_ = cmd.RegisterFlagCompletionFunc("level", cobra.FixedCompletions([]string{"debug", "info", "warn", "error"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// logFilter selects log lines by level and time. Lines it cannot parse
// (a crash's stack trace, the start banner) are kept unless a level above
// debug or a time is asked for.
type logFilter struct {
	min   slog.Level
	after time.Time
}

func (f logFilter) keep(line string) bool {
	lv, at, ok := parseLogLine(line)
	if !ok {
		return f.min <= slog.LevelDebug && f.after.IsZero()
	}
	return lv >= f.min && (f.after.IsZero() || !at.Before(f.after))
}

// parseLogLine reads the level and time of a text or JSON slog line.
func parseLogLine(line string) (slog.Level, time.Time, bool) {
	var lvText, tText string
	if strings.HasPrefix(line, "{") {
		var rec struct {
			Time  string `json:"time"`
			Level string `json:"level"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil {
			return 0, time.Time{}, false
		}
		lvText, tText = rec.Level, rec.Time
	} else {
		for _, field := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(field, "time="); ok {
				tText = v
			} else if v, ok := strings.CutPrefix(field, "level="); ok {
				lvText = v
			}
			if lvText != "" && tText != "" {
				break
			}
		}
	}
	var lv slog.Level
	at, err := time.Parse(time.RFC3339Nano, tText)
	if err != nil || lv.UnmarshalText([]byte(lvText)) != nil {
		return 0, time.Time{}, false
	}
	return lv, at, true
}
