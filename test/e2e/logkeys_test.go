package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// checkLogKeys fails the test for every line of the daemon's JSON log
// that repeats a key within one object (logKeyProblems). Every home runs
// it when its test ends.
func (h *home) checkLogKeys() {
	h.t.Helper()
	for _, p := range h.logKeyProblems() {
		h.t.Error(p)
	}
}

// logKeyProblems lists the lines of the daemon's log that repeat a key
// (a log consumer keeps one of the two values, or refuses the line): JSON
// lines (obs.log.format: json) that are not JSON or repeat a key within
// one object, and slog text lines (time=... key=value ...) that repeat a
// key. Other lines (a panic's stack) are passed over.
func (h *home) logKeyProblems() []string {
	var out []string
	paths, _ := filepath.Glob(filepath.Join(h.dir, "logs", "beamclaw.log*"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if bytes.HasPrefix(line, []byte("time=")) {
				if dups := duplicateTextKeys(string(line)); len(dups) > 0 {
					out = append(out, fmt.Sprintf("%s:%d repeats the key(s) %s: %s", filepath.Base(p), n, strings.Join(dups, ", "), line))
				}
				continue
			}
			if len(line) == 0 || line[0] != '{' {
				continue
			}
			if dups, err := duplicateKeys(line); err != nil {
				out = append(out, fmt.Sprintf("%s:%d is not JSON (%v): %s", filepath.Base(p), n, err, line))
			} else if len(dups) > 0 {
				out = append(out, fmt.Sprintf("%s:%d repeats the key(s) %s: %s", filepath.Base(p), n, strings.Join(dups, ", "), line))
			}
		}
	}
	return out
}

// duplicateKeys walks one JSON value token by token and returns the keys
// that occur twice in the same object (as "outer.key" paths).
func duplicateKeys(line []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var dups []string
	if err := walkValue(dec, "", &dups); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("more than one value on the line")
	}
	return dups, nil
}

// walkValue reads one value from dec, recording duplicated keys of its
// objects under path.
func walkValue(dec *json.Decoder, path string, dups *[]string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			full := key
			if path != "" {
				full = path + "." + key
			}
			if seen[key] {
				*dups = append(*dups, full)
			}
			seen[key] = true
			if err := walkValue(dec, full, dups); err != nil {
				return err
			}
		}
		_, err = dec.Token() // '}'
		return err
	case json.Delim('['):
		for dec.More() {
			if err := walkValue(dec, path+"[]", dups); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
		return err
	}
	return nil
}

// duplicateTextKeys returns the keys that occur twice in one line of
// slog's text handler: key=value pairs, a value quoted (Go syntax) when
// it needs to be. A line it cannot read gives nothing.
func duplicateTextKeys(line string) []string {
	seen := map[string]bool{}
	var dups []string
	for rest := line; rest != ""; {
		rest = strings.TrimLeft(rest, " ")
		key, val, ok := strings.Cut(rest, "=")
		if !ok || key == "" || strings.ContainsAny(key, " \"") {
			return dups
		}
		if seen[key] {
			dups = append(dups, key)
		}
		seen[key] = true
		if strings.HasPrefix(val, "\"") {
			q, err := strconv.QuotedPrefix(val)
			if err != nil {
				return dups
			}
			rest = val[len(q):]
			continue
		}
		_, rest, _ = strings.Cut(val, " ")
	}
	return dups
}

// TestLogKeyCheckFindsRepeats: the harness's log check itself, on lines
// of both formats.
func TestLogKeyCheckFindsRepeats(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"a":1,"b":{"a":2,"c":[{"d":1,"d":2}]}}`, "b.c[].d"},
		{`{"msg":"event","session_id":"s","job_id":"j","session_id":"s"}`, "session_id"},
		{`{"a":"x","b":{"a":1}}`, ""},
		{`time=2026-01-01T00:00:00Z level=INFO msg=event session_id=s job_id=j session_id=s`, "session_id"},
		{`time=2026-01-01T00:00:00Z level=INFO msg="a b=c msg=x" err="x \"y=z\" time=" k=v`, ""},
	} {
		var dups []string
		if strings.HasPrefix(tc.line, "time=") {
			dups = duplicateTextKeys(tc.line)
		} else {
			var err error
			if dups, err = duplicateKeys([]byte(tc.line)); err != nil {
				t.Fatalf("%s: %v", tc.line, err)
			}
		}
		if got := strings.Join(dups, ","); got != tc.want {
			t.Errorf("%s: repeated %q, want %q", tc.line, got, tc.want)
		}
	}
}
