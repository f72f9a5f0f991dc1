package workspace

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestAppendReadDaily(t *testing.T) {
	s := mustStore(t)
	mustCreate(t, s, "default")
	for _, text := range []string{"Shipped the release.", "Bob called\nabout the invoice.\n"} {
		if err := s.AppendDaily("default", "", "", text); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ReadDaily("default", "", "2026-11-20")
	if err != nil {
		t.Fatal(err)
	}
	want := "## 14:05\n\nShipped the release.\n\n## 14:05\n\nBob called\nabout the invoice.\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("daily log (-want +got):\n%s", diff)
	}
	if err := s.AppendDaily("default", "", "2026-11-18", "older"); err != nil {
		t.Fatal(err)
	}
	dates, err := s.ListDaily("default", "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"2026-11-18", "2026-11-20"}, dates); diff != "" {
		t.Fatalf("ListDaily (-want +got):\n%s", diff)
	}
}

func TestDailyErrors(t *testing.T) {
	s := mustStore(t)
	mustCreate(t, s, "default")
	tests := []struct {
		name string
		err  error
		kind beamclaw.Kind
	}{
		{"bad date", s.AppendDaily("default", "", "2026-13-01", "x"), beamclaw.KindInvalid},
		{"path in date", s.AppendDaily("default", "", "../../x", "x"), beamclaw.KindInvalid},
		{"short date", s.AppendDaily("default", "", "2026-1-1", "x"), beamclaw.KindInvalid},
		{"blank text", s.AppendDaily("default", "", "", " \n"), beamclaw.KindInvalid},
		{"no agent", s.AppendDaily("ghost", "", "", "x"), beamclaw.KindNotFound},
		{"missing log", func() error { _, err := s.ReadDaily("default", "", "2020-01-01"); return err }(), beamclaw.KindNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := beamclaw.KindOf(tt.err); tt.err == nil || got != tt.kind {
				t.Fatalf("err = %v (kind %v), want kind %v", tt.err, got, tt.kind)
			}
		})
	}
}

func TestConcurrentAppendDaily(t *testing.T) {
	s := mustStore(t)
	mustCreate(t, s, "default")
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := s.AppendDaily("default", "", "", fmt.Sprintf("entry w%d-i%d line one\nline two of w%d-i%d", w, i, w, i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, err := s.ReadDaily("default", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "## 14:05\n"); n != writers*each {
		t.Errorf("%d entry headers, want %d", n, writers*each)
	}
	for w := range writers {
		for i := range each {
			entry := fmt.Sprintf("entry w%d-i%d line one\nline two of w%d-i%d\n", w, i, w, i)
			if !strings.Contains(got, entry) {
				t.Fatalf("entry w%d-i%d missing or torn", w, i)
			}
		}
	}
}
