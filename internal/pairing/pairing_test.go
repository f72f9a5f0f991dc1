package pairing

import (
	"bytes"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func mustStore(tb testing.TB) (*Store, *clock.Fake) {
	tb.Helper()
	db, err := store.Open(filepath.Join(tb.TempDir(), "beamclaw.db"), store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	clk := clock.NewFake(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	return New(db, Options{Clock: clk}), clk
}

func TestCodeShape(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		c, err := NewCode(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(c) != CodeLen {
			t.Fatalf("code %q has length %d", c, len(c))
		}
		for _, r := range c {
			if !strings.ContainsRune(Alphabet, r) {
				t.Fatalf("code %q has %q outside the alphabet", c, r)
			}
		}
		seen[c] = true
	}
	if len(seen) < 199 {
		t.Errorf("only %d distinct codes of 200", len(seen))
	}
	for _, ambiguous := range "01OIL" {
		if strings.ContainsRune(Alphabet, ambiguous) {
			t.Errorf("alphabet holds ambiguous %q", ambiguous)
		}
	}
}

func TestRequestApproveAllowed(t *testing.T) {
	s, _ := mustStore(t)
	p, created, err := s.Request("telegram", "42", "alice")
	if err != nil || !created {
		t.Fatalf("Request = %v, created %v", err, created)
	}
	again, created, err := s.Request("telegram", "42", "alice")
	if err != nil || created || again.Code != p.Code {
		t.Fatalf("second Request = %+v %v %v, want the same code", again, created, err)
	}
	if _, ok := s.Allowed("telegram", "42"); ok {
		t.Fatal("allowed before approval")
	}
	peer, err := s.Approve("telegram", strings.ToLower(p.Code[:4])+"-"+p.Code[4:], "mom")
	if err != nil {
		t.Fatal(err)
	}
	want := Peer{Channel: "telegram", UserID: "42", Name: "alice", Agent: "mom", ApprovedAt: peer.ApprovedAt}
	if d := cmp.Diff(want, peer); d != "" {
		t.Errorf("peer (-want +got):\n%s", d)
	}
	if agent, ok := s.Allowed("telegram", "42"); !ok || agent != "mom" {
		t.Errorf("Allowed = %q %v", agent, ok)
	}
	if _, err := s.Approve("telegram", p.Code, ""); !errors.Is(err, ErrUnknownCode) {
		t.Errorf("second Approve = %v, want ErrUnknownCode", err)
	}
	if pend, _ := s.ListPending(""); len(pend) != 0 {
		t.Errorf("pending after approval: %v", pend)
	}
}

func TestExpiry(t *testing.T) {
	s, clk := mustStore(t)
	p, _, err := s.Request("telegram", "7", "")
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	if _, err := s.Approve("telegram", p.Code, ""); !errors.Is(err, ErrExpired) {
		t.Fatalf("Approve after 1h = %v, want ErrExpired", err)
	}
	if pend, _ := s.ListPending("telegram"); len(pend) != 0 {
		t.Errorf("expired request listed: %v", pend)
	}
	fresh, created, err := s.Request("telegram", "7", "")
	if err != nil || !created || fresh.Code == p.Code {
		t.Fatalf("Request after expiry = %+v %v %v, want a new code", fresh, created, err)
	}
	clk.Advance(59 * time.Minute)
	if _, err := s.Approve("telegram", fresh.Code, ""); err != nil {
		t.Fatalf("Approve within the hour: %v", err)
	}
}

func TestPendingCap(t *testing.T) {
	s, clk := mustStore(t)
	for _, id := range []string{"1", "2", "3"} {
		if _, _, err := s.Request("telegram", id, ""); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
	}
	if _, _, err := s.Request("telegram", "4", ""); !errors.Is(err, ErrTooManyPending) {
		t.Fatalf("fourth Request = %v, want ErrTooManyPending", err)
	}
	if _, _, err := s.Request("telegram", "2", ""); err != nil {
		t.Errorf("a waiting user asking again: %v", err)
	}
	if _, _, err := s.Request("other", "4", ""); err != nil {
		t.Errorf("the cap is per channel: %v", err)
	}
	clk.Advance(57 * time.Minute) // the first request is now exactly 60 minutes old
	if _, _, err := s.Request("telegram", "4", ""); err != nil {
		t.Errorf("Request once the oldest expired: %v", err)
	}
	pend, err := s.ListPending("telegram")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range pend {
		ids = append(ids, p.UserID)
	}
	if d := cmp.Diff([]string{"2", "3", "4"}, ids); d != "" {
		t.Errorf("pending ids (-want +got):\n%s", d)
	}
}

func TestRevoke(t *testing.T) {
	s, _ := mustStore(t)
	p, _, _ := s.Request("telegram", "9", "")
	if _, err := s.Approve("telegram", p.Code, ""); err != nil {
		t.Fatal(err)
	}
	peers, err := s.ListApproved("")
	if err != nil || len(peers) != 1 || peers[0].UserID != "9" {
		t.Fatalf("ListApproved = %v, %v", peers, err)
	}
	if err := s.Revoke("telegram", "9"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Allowed("telegram", "9"); ok {
		t.Error("allowed after revoke")
	}
	if err := s.Revoke("telegram", "9"); !errors.Is(err, ErrNotPaired) {
		t.Errorf("second Revoke = %v, want ErrNotPaired", err)
	}
	if err := s.Revoke("nochannel", "9"); !errors.Is(err, ErrNotPaired) {
		t.Errorf("Revoke on unknown channel = %v", err)
	}
}

func TestGate(t *testing.T) {
	s, _ := mustStore(t)
	p, _, _ := s.Request("telegram", "100", "")
	if _, err := s.Approve("telegram", p.Code, "ops"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		gate      Gate
		user      string
		alias     string
		want      Verdict
		wantAgent string
	}{
		{"pairing stranger", Gate{Policy: PolicyPairing}, "5", "", NeedsPairing, ""},
		{"pairing approved", Gate{Policy: PolicyPairing}, "100", "", Admitted, "ops"},
		{"pairing allow_from", Gate{Policy: PolicyPairing, AllowFrom: []string{"5"}}, "5", "", Admitted, ""},
		{"allowlist empty admits nobody", Gate{Policy: PolicyAllowlist}, "100", "", Denied, ""},
		{"allowlist id", Gate{Policy: PolicyAllowlist, AllowFrom: []string{"5"}}, "5", "", Admitted, ""},
		{"allowlist username", Gate{Policy: PolicyAllowlist, AllowFrom: []string{"@Alice"}}, "5", "alice", Admitted, ""},
		{"allowlist other", Gate{Policy: PolicyAllowlist, AllowFrom: []string{"5"}}, "6", "", Denied, ""},
		{"open", Gate{Policy: PolicyOpen}, "6", "", Admitted, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.gate.Channel, tc.gate.Store = "telegram", s
			agent, v := tc.gate.Check(tc.user, tc.alias)
			if v != tc.want || agent != tc.wantAgent {
				t.Errorf("Check = %q %v, want %q %v", agent, v, tc.wantAgent, tc.want)
			}
		})
	}
}

func TestParsePolicy(t *testing.T) {
	for in, want := range map[string]Policy{"": PolicyPairing, "open": PolicyOpen, "allowlist": PolicyAllowlist} {
		if got, err := ParsePolicy(in); err != nil || got != want {
			t.Errorf("ParsePolicy(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParsePolicy("everyone"); !errors.Is(err, ErrInvalid) {
		t.Errorf("ParsePolicy(everyone) = %v", err)
	}
}

func TestCodeNeverLogged(t *testing.T) {
	s, _ := mustStore(t)
	p, _, _ := s.Request("telegram", "1", "")
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("pairing requested", "request", p)
	if strings.Contains(buf.String(), p.Code) {
		t.Errorf("log line holds the code: %s", buf.String())
	}
}

func TestPersistsAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beamclaw.db")
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := New(db, Options{})
	p, _, _ := s.Request("telegram", "3", "")
	if _, err := s.Approve("telegram", p.Code, ""); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, ok := New(db, Options{}).Allowed("telegram", "3"); !ok {
		t.Error("approval lost across reopen")
	}
}
