package main

import (
	"strings"
	"testing"
)

func TestSummaryListsSkipsAndFailsOnMissingTools(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: MISSING TOOL: jq (apt-get install jq)\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestA"}`,
		`{"Action":"run","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: slow; -short\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestB"}`,
		`{"Action":"pass","Package":"p","Elapsed":0.5}`,
	}, "\n")
	var out strings.Builder
	if code := run(strings.NewReader(in), &out, false); code != 0 {
		t.Errorf("exit %d without -fail-missing", code)
	}
	for _, want := range []string{"ok  \tp\t0.500s", "2 skipped tests:", "p TestA: MISSING TOOL: jq (apt-get install jq)", "p TestB: slow; -short", "1 tests did not run"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run(strings.NewReader(in), &out, true); code != 1 || !strings.Contains(out.String(), "CI must run them all") {
		t.Errorf("-fail-missing: exit %d\n%s", code, out.String())
	}
	fail := `{"Action":"output","Package":"q","Test":"TestC","Output":"    c_test.go:1: boom\n"}` + "\n" +
		`{"Action":"fail","Package":"q","Test":"TestC"}` + "\n" + `{"Action":"fail","Package":"q","Elapsed":1}`
	out.Reset()
	if code := run(strings.NewReader(fail), &out, false); code != 1 || !strings.Contains(out.String(), "boom") || !strings.Contains(out.String(), "FAIL\tq") {
		t.Errorf("failure: exit %d\n%s", code, out.String())
	}
}
