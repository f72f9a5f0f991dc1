// Command testsummary reads `go test -json` on stdin and prints what a
// person wants of a test run: each package's result, the output of every
// failed test, and at the end every skipped test with its reason. It exits
// 1 when anything failed, or, with -fail-missing, when a test was skipped
// because the machine lacks a tool (test/testenv).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type key struct{ pkg, test string }

func main() {
	failMissing := flag.Bool("fail-missing", false, "exit 1 when a test skipped for a missing tool")
	flag.Parse()
	os.Exit(run(os.Stdin, os.Stdout, *failMissing))
}

func run(in io.Reader, out io.Writer, failMissing bool) int {
	outputs := map[key][]string{}
	var skipped []key
	failed, missing := 0, 0
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if json.Unmarshal(line, &ev) != nil || ev.Action == "" {
			fmt.Fprintln(out, string(line)) // go test's own text (a build error)
			continue
		}
		k := key{ev.Package, ev.Test}
		switch ev.Action {
		case "output", "build-output":
			outputs[k] = append(outputs[k], ev.Output)
		case "skip":
			if ev.Test != "" {
				skipped = append(skipped, k)
			}
		case "fail", "build-fail":
			failed++
			if ev.Test != "" {
				fmt.Fprint(out, strings.Join(outputs[k], ""))
			} else {
				fmt.Fprint(out, strings.Join(outputs[k], ""))
				fmt.Fprintf(out, "FAIL\t%s\t%.3fs\n", ev.Package, ev.Elapsed)
			}
		case "pass":
			if ev.Test == "" {
				fmt.Fprintf(out, "ok  \t%s\t%.3fs\n", ev.Package, ev.Elapsed)
			}
		}
		if ev.Action == "pass" || ev.Action == "fail" {
			if ev.Test == "" { // a package's output is no longer needed
				for kk := range outputs {
					if kk.pkg == ev.Package && kk.test != "" && !contains(skipped, kk) {
						delete(outputs, kk)
					}
				}
			} else {
				delete(outputs, k)
			}
		}
	}
	if len(skipped) > 0 {
		sort.Slice(skipped, func(i, j int) bool {
			if skipped[i].pkg != skipped[j].pkg {
				return skipped[i].pkg < skipped[j].pkg
			}
			return skipped[i].test < skipped[j].test
		})
		fmt.Fprintf(out, "\n%d skipped tests:\n", len(skipped))
		for _, k := range skipped {
			reason := skipReason(outputs[k])
			if strings.Contains(reason, "MISSING TOOL:") {
				missing++
			}
			fmt.Fprintf(out, "  %s %s: %s\n", k.pkg, k.test, reason)
		}
	}
	switch {
	case failed > 0:
		fmt.Fprintf(out, "\nFAIL: %d failures\n", failed)
		return 1
	case missing > 0 && failMissing:
		fmt.Fprintf(out, "\nFAIL: %d tests skipped for a missing tool; CI must run them all\n", missing)
		return 1
	case missing > 0:
		fmt.Fprintf(out, "\n%d tests did not run for a missing tool (see above); CI runs them\n", missing)
	}
	return 0
}

func contains(ks []key, k key) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// skipReason is the message of a test's t.Skip: the output lines between
// its "=== RUN" and "--- SKIP" lines.
func skipReason(lines []string) string {
	var msg []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		// "file_test.go:12: message"
		if i := strings.Index(t, ": "); i > 0 && strings.Contains(t[:i], ".go:") {
			t = t[i+2:]
		}
		msg = append(msg, t)
	}
	if len(msg) == 0 {
		return "(no reason given)"
	}
	return strings.Join(msg, " ")
}
