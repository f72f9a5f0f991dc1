package openai

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readAllEvents(t testing.TB, in string) ([]string, error) {
	t.Helper()
	r := newSSEReader(strings.NewReader(in))
	var out []string
	for {
		data, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(data))
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"single events", "data: a\n\ndata: b\n\n", []string{"a", "b"}},
		{"no space after colon", "data:x\n\n", []string{"x"}},
		{"only one space removed", "data:  x\n\n", []string{" x"}},
		{"multi-line data", "data: one\ndata: two\n\n", []string{"one\ntwo"}},
		{"comments and other fields", ": keepalive\nevent: message\nid: 3\nretry: 10\ndata: d\n\n", []string{"d"}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"blank lines between", "\n\n\ndata: a\n\n\n\n", []string{"a"}},
		{"last event without blank line", "data: a\n\ndata: [DONE]", []string{"a", "[DONE]"}},
		{"empty data field", "data\n\n", []string{""}},
		{"colon inside value", `data: {"a":"b:c"}` + "\n\n", []string{`{"a":"b:c"}`}},
		{"comment only", ": OPENROUTER PROCESSING\n\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAllEvents(t, tt.in)
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSSEReaderLongLine(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	got, err := readAllEvents(t, "data: "+long+"\n\n")
	if err != nil || len(got) != 1 || got[0] != long {
		t.Fatalf("long line: %d events, err %v", len(got), err)
	}
	if _, err := readAllEvents(t, "data: "+strings.Repeat("y", maxEventSize+10)+"\n\n"); err == nil {
		t.Fatal("oversized event accepted")
	}
}

func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n", "data: a\ndata: b\n\n", ": c\n\ndata:[DONE]\n\n", "data: x\r\n\r\n", "data", "\n\n\n", "da\nta: :\n",
		`data: {"choices":[{"delta":{"content":"hi"}}]}` + "\n\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		events, err := readAllEvents(t, in)
		if err != nil {
			t.Fatalf("error on in-memory input: %v", err)
		}
		data := 0
		for _, line := range strings.FieldsFunc(in, func(r rune) bool { return r == '\n' }) {
			if strings.HasPrefix(strings.TrimSuffix(line, "\r"), "data") {
				data++
			}
		}
		if len(events) > data {
			t.Fatalf("%d events from %d data lines", len(events), data)
		}
		for _, e := range events {
			if strings.Contains(e, "\r") && !strings.Contains(in, "\r") {
				t.Fatalf("event %q invents a CR", e)
			}
		}
	})
}
