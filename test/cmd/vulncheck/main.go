// Command vulncheck reads `govulncheck -format json` on stdin and decides
// what `make vuln` reports: every vulnerability the code calls (a finding
// whose trace starts at a vulnerable function) fails the run unless its ID
// is in the allowlist file, and an allowlist entry the code no longer calls
// fails it too, so the list only ever holds what is still needed. Modules
// and packages that are vulnerable but not called are counted, not failed.
//
// The allowlist (scripts/vuln-allow.txt) holds one entry a line, the ID
// then its reason: `GO-2026-6911 mcp-go: ...`; `#` starts a comment, and
// an ID without a reason is an error.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// message is one object of govulncheck's JSON stream; only the parts read
// here (golang.org/x/vuln/internal/govulncheck).
type message struct {
	Config *struct {
		ScannerVersion string `json:"scanner_version"`
		DB             string `json:"db"`
		GoVersion      string `json:"go_version"`
		ScanLevel      string `json:"scan_level"`
	} `json:"config"`
	OSV *struct {
		ID      string `json:"id"`
		Summary string `json:"summary"`
	} `json:"osv"`
	Finding *finding `json:"finding"`
}

type finding struct {
	OSV          string   `json:"osv"`
	FixedVersion string   `json:"fixed_version"`
	Trace        []*frame `json:"trace"`
}

type frame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Receiver string `json:"receiver"`
	Position *struct {
		Filename string `json:"filename"`
		Line     int    `json:"line"`
	} `json:"position"`
}

// report is what the stream says: the called findings (the first of each
// ID), the IDs found only as an import or a requirement, the summaries.
type report struct {
	config    string
	called    map[string]*finding
	notCalled map[string]bool
	summaries map[string]string
}

func main() {
	allowPath := flag.String("allow", "scripts/vuln-allow.txt", "the allowlist: one `ID reason` a line")
	flag.Parse()
	os.Exit(run(os.Stdin, os.Stdout, *allowPath))
}

func run(in io.Reader, out io.Writer, allowPath string) int {
	allow, err := readAllowlist(allowPath)
	if err != nil {
		fmt.Fprintf(out, "vulncheck: %v\n", err)
		return 2
	}
	rep, err := readReport(in)
	if err != nil {
		fmt.Fprintf(out, "vulncheck: reading govulncheck's output: %v\n", err)
		return 2
	}
	return judge(out, rep, allow)
}

var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^GO-\d{4}-\d{4,10}$`) })

// readAllowlist returns each allowed ID with its reason.
func readAllowlist(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	allow := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		id, reason, _ := strings.Cut(strings.TrimSpace(line), " ")
		if id == "" {
			continue
		}
		if !idPattern().MatchString(id) {
			return nil, fmt.Errorf("%s:%d: %q is not a vulnerability ID (GO-YYYY-NNNN)", path, n, id)
		}
		if strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s:%d: %s has no reason: write why it is allowed and what mitigates it", path, n, id)
		}
		allow[id] = strings.TrimSpace(reason)
	}
	return allow, sc.Err()
}

func readReport(in io.Reader) (*report, error) {
	rep := &report{called: map[string]*finding{}, notCalled: map[string]bool{}, summaries: map[string]string{}}
	dec := json.NewDecoder(in)
	for {
		var m message
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		switch {
		case m.Config != nil:
			c := m.Config
			rep.config = fmt.Sprintf("govulncheck %s, %s, %s, scan level %s", c.ScannerVersion, c.GoVersion, c.DB, c.ScanLevel)
		case m.OSV != nil:
			rep.summaries[m.OSV.ID] = m.OSV.Summary
		case m.Finding != nil:
			f := m.Finding
			if len(f.Trace) > 0 && f.Trace[0].Function != "" {
				if rep.called[f.OSV] == nil {
					rep.called[f.OSV] = f
				}
			} else {
				rep.notCalled[f.OSV] = true
			}
		}
	}
	if rep.config == "" {
		return nil, errors.New("no config message: is this govulncheck -format json?")
	}
	return rep, nil
}

// judge prints the verdict and returns the exit code: 1 when a called
// vulnerability is not allowed or an allowed one is no longer called.
func judge(out io.Writer, rep *report, allow map[string]string) int {
	fmt.Fprintln(out, rep.config)
	failed := 0
	for _, id := range sortedKeys(rep.called) {
		f := rep.called[id]
		if reason, ok := allow[id]; ok {
			fmt.Fprintf(out, "allowed  %s %s (%s)\n         %s\n", id, found(f), rep.summaries[id], reason)
			continue
		}
		failed++
		fmt.Fprintf(out, "CALLED   %s %s: %s\n", id, found(f), rep.summaries[id])
		for i := len(f.Trace) - 1; i >= 0; i-- {
			fmt.Fprintf(out, "         %s\n", f.Trace[i])
		}
	}
	for _, id := range sortedKeys(allow) {
		if rep.called[id] == nil {
			failed++
			fmt.Fprintf(out, "STALE    %s is allowed but no longer called: remove it from the allowlist\n", id)
		}
	}
	info := 0
	for id := range rep.notCalled {
		if rep.called[id] == nil {
			info++
		}
	}
	fmt.Fprintf(out, "%d called (%d allowed), %d more in imported packages or required modules that the code does not call\n",
		len(rep.called), len(rep.called)-countNotAllowed(rep, allow), info)
	if failed > 0 {
		fmt.Fprintf(out, "FAIL: %d to fix: move to the fixed version (above), or, when none exists, allow the ID in the allowlist with its reason and mitigation\n", failed)
		return 1
	}
	return 0
}

func countNotAllowed(rep *report, allow map[string]string) int {
	n := 0
	for id := range rep.called {
		if _, ok := allow[id]; !ok {
			n++
		}
	}
	return n
}

// found says where the vulnerable symbol is and where it is fixed.
func found(f *finding) string {
	sym := f.Trace[0]
	fixed := "no fix"
	if f.FixedVersion != "" {
		fixed = "fixed in " + f.FixedVersion
	}
	return fmt.Sprintf("in %s@%s (%s)", sym.Module, sym.Version, fixed)
}

func (fr *frame) String() string {
	name := fr.Function
	if fr.Receiver != "" {
		name = strings.TrimPrefix(fr.Receiver, "*") + "." + name
	}
	s := fr.Package + "." + name
	if fr.Position != nil && fr.Position.Filename != "" {
		s += fmt.Sprintf(" (%s:%d)", fr.Position.Filename, fr.Position.Line)
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
