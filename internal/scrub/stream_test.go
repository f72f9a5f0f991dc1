package scrub

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/scrub/scrubtest"
)

// stream writes pieces and returns what it forwarded, piece by piece.
func stream(s *Scrubber, pieces ...string) []string {
	var got []string
	st := s.NewStream(func(t string) { got = append(got, t) })
	for _, p := range pieces {
		st.Write(p)
	}
	st.Flush()
	return got
}

// checkStreamCuts streams text cut in two at every offset, and one byte
// at a time, and checks that what is forwarded is what String makes of
// the whole (up to a marker, where the stream stops).
func checkStreamCuts(t *testing.T, text string) {
	t.Helper()
	want := New().String(text)
	if i := firstMarker(text); i >= 0 {
		want = New().String(text[:i])
	}
	for cut := 1; cut < len(text); cut++ {
		if got := strings.Join(stream(New(), text[:cut], text[cut:]), ""); got != want {
			t.Fatalf("split at %d: forwarded %q, want %q", cut, got, want)
		}
	}
	bytes := make([]string, len(text))
	for i := range bytes {
		bytes[i] = text[i : i+1]
	}
	if got := strings.Join(stream(New(), bytes...), ""); got != want {
		t.Fatalf("one byte at a time: forwarded %q, want %q", got, want)
	}
}

func TestStreamForwardsAtOnce(t *testing.T) {
	cases := []struct {
		name   string
		pieces []string
		want   []string
	}{
		{"plain words go at once", []string{"Hello", " world", ", how", " are", " you?"},
			[]string{"Hello", " world", ", how", " are", " you?"}},
		{"a key is held until it ends", []string{"use sk-", "proj-", "abcdefghij0123456789", " now"},
			[]string{"use ", "[REDACTED] now"}},
		{"an assignment is held until its value ends", []string{"my password", ": hun", "ter22", " ok"},
			[]string{"my password", ": [REDACTED] ok"}},
		{"bearer waits for its credential", []string{"send Bearer", " ", "abcdef0123456789abcd", " then"},
			[]string{"send Bearer", " [REDACTED] then"}},
		{"tool markup stops the stream", []string{"let me check <tool", "_call> <name>x</name>"},
			[]string{"let me check "}},
		{"a URL may carry a password", []string{"see https:", "//ann:s3cretpw@host", ".example/x done"},
			[]string{"see ", "https://ann:[REDACTED]@host.example/x done"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, stream(New(), tc.pieces...)); diff != "" {
				t.Errorf("forwarded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamHoldsAPrefixOfARegisteredSecret(t *testing.T) {
	s := New("correct-horse-battery")
	got := stream(s, "the phrase is correct", "-horse-", "battery!")
	if joined := strings.Join(got, ""); strings.Contains(joined, "correct-horse") || joined != "the phrase is [REDACTED]!" {
		t.Errorf("forwarded %q", got)
	}
}

// Every credential fixture, cut anywhere inside a sentence, is never
// forwarded, whole or in part, and the pieces join to what String makes
// of the whole.
func TestStreamSplitsNeverLeak(t *testing.T) {
	for name, secret := range scrubtest.FakeSecrets() {
		if name == "long hex" || name == "long base64" || name == "basic auth" {
			continue // refused in config, not redacted in text
		}
		t.Run(name, func(t *testing.T) { checkStreamCuts(t, "before "+strings.TrimSpace(secret)+" after") })
	}
}

// FuzzStreamNeverLeaks: however a text is cut into pieces, nothing the
// scrubber would redact in the whole text is forwarded. (The pieces may
// redact a little more than the whole in contrived nestings of key=value
// pairs, never less.)
func FuzzStreamNeverLeaks(f *testing.F) {
	for _, s := range scrubtest.FakeSecrets() {
		f.Add("x "+strings.TrimSpace(s)+" y", 3, 5)
	}
	f.Add("password: hunter2 and more", 1, 1)
	f.Fuzz(func(t *testing.T, text string, a, b int) {
		if firstMarker(text) >= 0 || len(text) > 512 {
			return
		}
		pieces := splitAt(text, a, b)
		got := strings.Join(stream(New(), pieces...), "")
		for _, secret := range secretSpans(text) {
			if len(secret) >= 4 && strings.Contains(got, secret) && !strings.Contains(New().String(text), secret) {
				t.Errorf("pieces %q forwarded %q, which holds the secret %q", pieces, got, secret)
			}
		}
	})
}

// secretSpans is what the rules find in text, in one pass.
func secretSpans(text string) []string {
	var out []string
	for _, r := range rules() {
		for from := 0; from < len(text); {
			start, end, ok := r.find(text, from)
			if !ok {
				break
			}
			out = append(out, text[start:end])
			from = max(end, start+1)
		}
	}
	return out
}

// splitAt cuts text into pieces of lengths a, b, a, b, ... (at least 1).
func splitAt(text string, a, b int) []string {
	a, b = max(1, a%17), max(1, b%17)
	var out []string
	for i, n := 0, 0; i < len(text); n++ {
		l := a
		if n%2 == 1 {
			l = b
		}
		out = append(out, text[i:min(i+l, len(text))])
		i += l
	}
	return out
}
