package scrub

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStringRedacts(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"api_key equals", "api_key=abc123", "api_key=[REDACTED]"},
		{"API-KEY colon any case", "API-KEY: xyz rest", "API-KEY: [REDACTED] rest"},
		{"apikey spaced", "apikey = foo bar", "apikey = [REDACTED] bar"},
		{"token", "token: abc", "token: [REDACTED]"},
		{"access_token in query", "GET /x?access_token=abc&y=1 HTTP/1.1", "GET /x?access_token=[REDACTED] HTTP/1.1"},
		{"password no space", "Password:hunter2", "Password:[REDACTED]"},
		{"client_secret", "client_secret = s3cr3t\nnext", "client_secret = [REDACTED]\nnext"},
		{"go short assignment", "token := os.Getenv(x)", "token := [REDACTED]"},
		{"json-ish text keeps quotes", `{"password": "hunter 2", "user": "bob"}`, `{"password": "[REDACTED]", "user": "bob"}`},
		{"quoted passwd key", `{"passwd": "secret"}`, `{"passwd": "[REDACTED]"}`},
		{"quoted passwd key in text", `the config says "passwd": "secret" here`, `the config says "passwd": "[REDACTED]" here`},
		{"quoted passwd key unquoted value", `"db.passwd": secret, x`, `"db.passwd": [REDACTED] x`},
		{"single-quoted passwd key", `{'passwd': 'secret'}`, `{'passwd': '[REDACTED]'}`},
		{"a key after a path is still a key", `/etc/app.conf token=abcdef123`, `/etc/app.conf token=[REDACTED]`},
		{"escaped quote inside value", `"token": "a\"b", x`, `"token": "[REDACTED]", x`},
		{"shell header quote kept", `curl -H 'X-Api-Key: abc123' https://x`, `curl -H 'X-Api-Key: [REDACTED]' https://x`},
		{"authorization basic", "Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [REDACTED]"},
		{"authorization bearer", "Authorization: Bearer abc.def.ghi123", "Authorization: Bearer [REDACTED]"},
		{"bearer alone", `-H "bearer tok_1234567"`, `-H "bearer [REDACTED]"`},
		{"url userinfo", "postgres://admin:hunter2@db:5432/x", "postgres://admin:[REDACTED]@db:5432/x"},
		{"url empty user", "redis://:pw123@cache", "redis://:[REDACTED]@cache"},
		{"url after a key", "t=" + fakeJWT + "https://u:pw123@host", "t=[REDACTED]://u:[REDACTED]@host"},
		{"telegram url", "https://api.telegram.org/bot" + fakeTelegram + "/getMe", "https://api.telegram.org/bot[REDACTED]/getMe"},
		{"telegram bare", "tok " + fakeTelegram + ".", "tok [REDACTED]."},
		{"sk-proj", "key " + fakeOpenAIProj, "key [REDACTED]"},
		{"sk generic", "(" + fakeOpenAI + ")", "([REDACTED])"},
		{"sk-ant", fakeAnthropic, "[REDACTED]"},
		{"sk-or", "use " + fakeOpenRouter + " now", "use [REDACTED] now"},
		{"groq", fakeGroq, "[REDACTED]"},
		{"github classic", "remote " + fakeGitHub, "remote [REDACTED]"},
		{"github oauth", fakeGitHubOAu + ",", "[REDACTED],"},
		{"github fine-grained", fakeGitHubPAT, "[REDACTED]"},
		{"slack bot", fakeSlackBot, "[REDACTED]"},
		{"slack app", fakeSlackApp, "[REDACTED]"},
		{"aws key id", "id=" + fakeAWS + " ok", "id=[REDACTED] ok"},
		{"aws temp key id", fakeAWSTemp, "[REDACTED]"},
		{"google", "k " + fakeGoogle, "k [REDACTED]"},
		{"jwt", "jwt " + fakeJWT + " end", "jwt [REDACTED] end"},
		{"pem block", "before\n" + fakePEM + "\nafter", "before\n[REDACTED]\nafter"},
		{"pem openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----", "[REDACTED]"},
		{"pem truncated", "-----BEGIN PRIVATE KEY-----\n" + fakePEMBody + "\n(output truncated)", "[REDACTED]\n(output truncated)"},
		{"two secrets", fakeGroq + " and " + fakeGitHub, "[REDACTED] and [REDACTED]"},
		{"secret value is a key", "token=" + fakeGitHub, "token=[REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("String(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if again := String(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestStringKeepsProse(t *testing.T) {
	tests := []struct{ name, in string }{
		{"token in prose", "the token is in the file"},
		{"sk- alone", "prefix sk- alone"},
		{"task id", "task-123 and task-1234567890abcdefghij"},
		{"risk-free", "a risk-free, disk-0123456789abcdefgh plan"},
		{"hyphenated words", "sk-learn-compatible-estimators-here"},
		{"max_tokens", `max_tokens: 100, "tokens": 5`},
		{"bearer of news", "The bearer of bad news arrived."},
		{"basic usage", "Basic usage: run it"},
		{"times and ratios", "at 10:30 the ratio a=b held"},
		{"comparison", "if token == nil {"},
		{"plain url", "https://example.com/path?q=1#frag"},
		{"email", "write to user@example.com"},
		{"asian markets", "ASIAN markets and AKIAX"},
		{"secret garden", "I like the secret garden"},
		{"password reset", "Password reset link sent"},
		{"passwd quote in prose", `search the log for passwd": then read on`},
		{"passwd quote in a grep", `grep 'passwd":' app.log`},
		{"a path ending in a keyword", "cat: /etc/passwd: No such file or directory"},
		{"grep output of a path", "/etc/passwd:root:x:0:0:root:/root:/bin/bash"},
		{"bare prefixes", "ghp_ gsk_ xoxb- eyJ AIza github_pat_"},
		{"certificate", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
		{"empty", ""},
		{"already redacted", "token: [REDACTED] and Bearer [REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.in {
				t.Errorf("String(%q) = %q, want unchanged", tt.in, got)
			}
		})
	}
}

func TestStringCleanDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	text := cleanText(4096)
	if n := testing.AllocsPerRun(100, func() { _ = String(text) }); n != 0 {
		t.Errorf("String on clean text: %v allocs, want 0", n)
	}
}

func TestBytes(t *testing.T) {
	clean := []byte("nothing to see")
	if got := Bytes(clean); &got[0] != &clean[0] {
		t.Error("Bytes on clean input returned a copy, want the same slice")
	}
	got := Bytes([]byte("password=hunter2"))
	if diff := cmp.Diff("password=[REDACTED]", string(got)); diff != "" {
		t.Errorf("Bytes mismatch (-want +got):\n%s", diff)
	}
}

func TestScrubberLiterals(t *testing.T) {
	s := New("odd-shaped!secret#value", "short")
	if s.Add("tiny") {
		t.Error("Add accepted a value shorter than MinLiteralLen")
	}
	if !s.Add("  another-odd-one-42  ") || !s.Add("another-odd-one-42") {
		t.Error("Add refused a valid (or duplicate) value")
	}
	tests := []struct{ name, in, want string }{
		{"literal", "x odd-shaped!secret#value y", "x [REDACTED] y"},
		{"trimmed literal", "another-odd-one-42", "[REDACTED]"},
		{"short literal ignored", "short and tiny", "short and tiny"},
		{"patterns too", "token=abc another-odd-one-42", "token=[REDACTED] [REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, s.String(tt.in)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if got := string(s.Bytes([]byte("odd-shaped!secret#value"))); got != Redacted {
		t.Errorf("Bytes = %q", got)
	}
	var zero Scrubber
	if got := zero.String("password=x"); got != "password=[REDACTED]" {
		t.Errorf("zero Scrubber = %q", got)
	}
}

func TestScrubberConcurrent(t *testing.T) {
	s := New()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 50 {
				s.Add(strings.Repeat("x", 8) + string(rune('a'+i)) + string(rune('a'+j%26)))
				_ = s.String("xxxxxxxxab and more text")
			}
		})
	}
	wg.Wait()
	if got := s.String("xxxxxxxxab"); got != Redacted {
		t.Errorf("after concurrent Add: %q", got)
	}
}

// cleanText returns n bytes of ordinary prose with no secret in it.
func cleanText(n int) string {
	const para = "The agent read the file, summarised the results and asked whether " +
		"to continue: the session had 3 tool calls (risk-free reads) at 10:30, " +
		"and the task-42 report said max_tokens = 4096 was enough. See " +
		"https://example.com/docs?page=2 for details.\n"
	return strings.Repeat(para, n/len(para)+1)[:n]
}
