package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
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

// printLog prints the matching lines of path (the last n when n > 0),
// then with follow the new ones as they come, reopening the file when it
// is rotated.
func (a *app) printLog(ctx context.Context, path string, f logFilter, n int, follow bool) error {
	file, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return fmt.Errorf("no log at %s yet: the detached daemon writes it (`beamclaw start`)", path)
		}
		return err
	}
	defer func() { _ = file.Close() }()
	r := bufio.NewReaderSize(file, 64<<10)
	var tail []string
	var partial string
	collect := n > 0 // the file as it is now: keep its last n lines
	emit := func(line string) {
		if !f.keep(line) {
			return
		}
		if collect {
			tail = append(tail, line)
			if len(tail) > n {
				tail = tail[1:]
			}
			return
		}
		fmt.Fprintln(a.stdout, line)
	}
	readAll := func() error {
		for {
			s, err := r.ReadString('\n')
			if err == io.EOF {
				partial += s // a line still being written
				return nil
			}
			if err != nil {
				return err
			}
			emit(strings.TrimRight(partial+s, "\n"))
			partial = ""
		}
	}
	// Read what is there (its last n lines kept), then follow from where
	// that read stopped on the same file: a line written meanwhile is
	// neither skipped nor printed twice.
	if err := readAll(); err != nil {
		return err
	}
	collect = false
	for _, line := range tail {
		fmt.Fprintln(a.stdout, line)
	}
	if !follow {
		return nil
	}
	// Polled often enough that the daemon rarely rotates more than
	// max_files times between two looks (a file removed before it was
	// opened here is lost to the follower).
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if err := readAll(); err != nil {
			return err
		}
		// Rotated: the path names a new file. Finish ours (read above),
		// then the files rotated after it, oldest first, then the new one.
		cur, err1 := file.Stat()
		now, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || os.SameFile(cur, now) {
			continue
		}
		if err := readAll(); err != nil { // what reached our file before it was rotated
			return err
		}
		if partial != "" {
			emit(partial)
			partial = ""
		}
		// Open the new file before the rotated ones, so a rotation in
		// between shows up as the next file being among them.
		next, err := os.Open(path)
		if err != nil {
			continue
		}
		nextInfo, err := next.Stat()
		if err != nil {
			_ = next.Close()
			continue
		}
		for _, older := range rotatedAfter(path, cur, nextInfo) {
			err := a.printFrom(older, f)
			_ = older.Close()
			if err != nil {
				_ = next.Close()
				return err
			}
		}
		_ = file.Close()
		file, partial = next, ""
		r.Reset(file)
	}
}

// rotatedAfter opens the rotated files newer than cur (path.N-1 ...
// path.1 when cur is now path.N; every rotated file when cur is gone, past
// max_files), oldest first, leaving out next (the file now at path) and
// any file opened twice because a rotation moved it meanwhile.
func rotatedAfter(path string, cur, next os.FileInfo) []*os.File {
	var newer []*os.File
	var infos []os.FileInfo
	missing := 0
	for i := 1; i < 100 && missing < 3; i++ {
		f, err := os.Open(fmt.Sprintf("%s.%d", path, i))
		if err != nil {
			// A rotation renames FILE.n to FILE.n+1 before FILE to FILE.1:
			// an index can be missing for a moment, with older files after it.
			missing++
			continue
		}
		missing = 0
		fi, err := f.Stat()
		if err != nil || os.SameFile(fi, cur) {
			_ = f.Close()
			break
		}
		dup := os.SameFile(fi, next)
		for _, seen := range infos {
			dup = dup || os.SameFile(fi, seen)
		}
		if dup {
			_ = f.Close()
			continue
		}
		newer, infos = append(newer, f), append(infos, fi)
	}
	slices.Reverse(newer)
	return newer
}

// printFrom prints the matching lines of an open file, from its start.
func (a *app) printFrom(file *os.File, f logFilter) error {
	b, err := io.ReadAll(file)
	if err != nil {
		return nil // gone meanwhile
	}
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line != "" && f.keep(line) {
			fmt.Fprintln(a.stdout, line)
		}
	}
	return nil
}
