// Package testenv is how a test asks for something the machine may lack
// (Docker's engine, jq, tmux, node, a time zone): without it the test is
// skipped with a MISSING TOOL line, and fails when CI is set. `make test`
// lists every such skip at the end of the run, and `.ci/run` fails when
// there is one.
package testenv

import (
	"os"
	"testing"
)

// Marker starts every skip message of Unavailable; test/cmd/testsummary
// looks for it.
const Marker = "MISSING TOOL:"

// Unavailable skips tb (fails it under CI) because what is missing; fix
// says how to get it.
func Unavailable(tb testing.TB, what, fix string) {
	tb.Helper()
	msg := Marker + " " + what
	if fix != "" {
		msg += " (" + fix + ")"
	}
	if InCI() {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// InCI reports whether the tests run under CI (CI set, and not "false").
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}
