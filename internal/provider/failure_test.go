package provider_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// A 400's code and message say why: an overflowing context (by code, by
// OpenAI's words or Anthropic's) and a content-policy refusal, not any
// message that mentions a context; a 402 is billing, refused like
// credentials; Anthropic's 529 (overloaded) is unavailability.
func TestKindForStatusReadsTheReason(t *testing.T) {
	for _, tc := range []struct {
		status    int
		code, msg string
		want      beamclaw.Kind
	}{
		{400, "context_length_exceeded", "too long", beamclaw.KindTooLarge},
		{400, "", "This model's maximum context length is 8192 tokens", beamclaw.KindTooLarge},
		{400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum", beamclaw.KindTooLarge},
		{400, "", "the context length parameter is not supported", beamclaw.KindInvalid},
		{400, "content_filter", "filtered", beamclaw.KindForbidden},
		{400, "", "The response was filtered due to our content management policy", beamclaw.KindForbidden},
		{400, "invalid_value", "temperature must be at most 2", beamclaw.KindInvalid},
		{402, "", "insufficient credits", beamclaw.KindUnauthorized},
		{413, "", "request entity too large", beamclaw.KindTooLarge},
		{429, "", "slow down", beamclaw.KindRateLimited},
		{529, "overloaded_error", "Overloaded", beamclaw.KindUnavailable},
	} {
		if got := provider.KindForStatus(tc.status, tc.code, tc.msg); got != tc.want {
			t.Errorf("KindForStatus(%d, %q, %q) = %v, want %v", tc.status, tc.code, tc.msg, got, tc.want)
		}
	}
}

// Retry-After in milliseconds wins over seconds; a date counts from now.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 29, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"3"}, "Retry-After-Ms": {"1500"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(time.Minute).Format(http.TimeFormat)}}, time.Minute},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{}, 0},
	} {
		if got := provider.RetryAfter(tc.h, now); got != tc.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

// The retry loop waits the provider's Retry-After, else doubles its
// backoff; it stops at Max, at a Retry-After over the cap, at an error
// that is not retryable, and makes one attempt when the chain has
// somewhere else to go.
func TestRetryDo(t *testing.T) {
	var waits []time.Duration
	r := provider.Retry{Name: "p", Max: 3, BackoffBase: time.Second, BackoffMax: 3 * time.Second,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	unavailable := beamclaw.E("op", beamclaw.KindUnavailable, "", nil)
	limited := beamclaw.E("op", beamclaw.KindRateLimited, "", &provider.StatusError{Status: 429, RetryAfter: 5 * time.Second})
	always := func(error) bool { return true }
	calls := 0
	err := r.Do(context.Background(), "op", always, func(n int) error {
		calls++
		if n == 0 {
			return limited
		}
		return unavailable
	})
	if !errors.Is(err, unavailable) || calls != 4 {
		t.Fatalf("Do = %v after %d calls, want the last failure after 4", err, calls)
	}
	if want := []time.Duration{5 * time.Second, 2 * time.Second, 3 * time.Second}; !slices.Equal(waits, want) {
		t.Errorf("waits = %v, want %v", waits, want)
	}
	waits, calls = nil, 0
	long := beamclaw.E("op", beamclaw.KindRateLimited, "", &provider.StatusError{Status: 429, RetryAfter: time.Hour})
	invalid := beamclaw.E("op", beamclaw.KindInvalid, "", nil)
	for _, first := range []error{long, invalid} {
		_ = r.Do(context.Background(), "op", always, func(int) error { calls++; return first })
	}
	_ = r.Do(provider.WithoutRetries(context.Background()), "op", always, func(int) error { calls++; return unavailable })
	if calls != 3 || len(waits) != 0 {
		t.Errorf("%d calls, waits %v; want one attempt each and no wait", calls, waits)
	}
}

func TestModelOf(t *testing.T) {
	if m, err := provider.ModelOf("x.Chat", "asked", "default"); m != "asked" || err != nil {
		t.Errorf("asked: %q %v", m, err)
	}
	if m, err := provider.ModelOf("x.Chat", "", "default"); m != "default" || err != nil {
		t.Errorf("default: %q %v", m, err)
	}
	if _, err := provider.ModelOf("x.Chat", "", ""); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Errorf("neither: %v, want KindInvalid", err)
	}
}
