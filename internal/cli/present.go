package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// errCancelled is returned when the user answers no to a confirmation.
var errCancelled = errors.New("cancelled; nothing changed")

// printJSON writes v indented on stdout.
func (a *app) printJSON(v any) error { return writeJSON(a.stdout, v) }

// writeJSON writes v indented.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// shows makes cmd a command that gets a value and prints it: as JSON with
// --json (jsonUsage is the flag's help), else with text.
func shows[T any](a *app, cmd *cobra.Command, jsonUsage string,
	get func(cmd *cobra.Command, args []string) (T, error), text func(T) error) *cobra.Command {
	var asJSON bool
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		v, err := get(cmd, args)
		if err != nil {
			return err
		}
		if asJSON {
			return a.printJSON(v)
		}
		return text(v)
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, jsonUsage)
	return cmd
}

// table writes aligned columns; call flush when done.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	if len(header) > 0 {
		t.row(header...)
	}
	return t
}

func (t *table) row(cols ...string) {
	fmt.Fprintln(t.tw, strings.Join(cols, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

// confirm asks question on stderr and reads the answer from stdin; only
// "y" or "yes" agree. An unreadable or empty answer is no.
func (a *app) confirm(question string) bool {
	fmt.Fprintf(a.stderr, "%s [y/N] ", question)
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(a.stderr)
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// oneLine squashes whitespace and cuts s to max runes with an ellipsis.
func oneLine(s string, max int) string { return protocol.OneLine(s, max) }

// humanSize renders a byte count.
func humanSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
}

// localTime renders an RFC 3339 stamp in local time, minute precision.
func localTime(stamp string) string {
	t, err := time.Parse(time.RFC3339, stamp)
	if err != nil {
		return stamp
	}
	return t.Local().Format("2006-01-02 15:04")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
