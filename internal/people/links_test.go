package people

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

func openLinks(t *testing.T, clk clock.Clock) (*Links, func() *Links) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "beamclaw.db")
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	l, err := Open(db, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	reopen := func() *Links {
		l2, err := Open(db, clk, nil)
		if err != nil {
			t.Fatal(err)
		}
		return l2
	}
	return l, reopen
}

// A person links a Telegram account to their /ws user with a code shown
// on one and typed on the other; both resolve to one person, after a
// restart too; unlinking splits them again.
func TestLinkWithCodeAndUnlink(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	l, reopen := openLinks(t, clk)
	code, exp, err := l.Issue(ctx, "ws:erin")
	if err != nil || len(code) != 8 || !exp.Equal(clk.Now().Add(CodeTTL)) {
		t.Fatalf("Issue = %q %v %v", code, exp, err)
	}
	if _, err := l.Redeem(ctx, "ws:erin", code); !errors.Is(err, ErrSameAccount) {
		t.Errorf("redeem on the same account: %v", err)
	}
	p, err := l.Redeem(ctx, "tg:42", code[:4]+"-"+code[4:])
	if err != nil || p != "ws:erin" {
		t.Fatalf("Redeem = %q %v", p, err)
	}
	if got := l.Resolve("tg:42"); got != "ws:erin" {
		t.Errorf("Resolve(tg:42) = %q", got)
	}
	if got := reopen().Resolve("tg:42"); got != "ws:erin" {
		t.Errorf("after a restart Resolve(tg:42) = %q", got)
	}
	if got := l.Accounts("tg:42"); !slices.Equal(got, []string{"ws:erin", "tg:42"}) {
		t.Errorf("Accounts = %v", got)
	}
	if _, err := l.Redeem(ctx, "api:mallory", code); !errors.Is(err, ErrBadCode) {
		t.Errorf("a used code again: %v", err)
	}
	gone, err := l.Unlink(ctx, "tg:42")
	if err != nil || !slices.Equal(gone, []string{"tg:42"}) || l.Resolve("tg:42") != "tg:42" {
		t.Errorf("Unlink = %v %v; Resolve = %q", gone, err, l.Resolve("tg:42"))
	}
	if reopen().Resolve("tg:42") != "tg:42" {
		t.Error("the unlink did not last")
	}
	if _, err := l.Unlink(ctx, "tg:42"); !errors.Is(err, ErrNotLinked) {
		t.Errorf("unlink again: %v", err)
	}
}

// Linking needs the code: a wrong or expired one links nothing, and
// repeated wrong codes, from any accounts, stop linking for a while.
func TestLinkNeedsTheCode(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	l, _ := openLinks(t, clk)
	code, _, err := l.Issue(ctx, "ws:erin")
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxFailures {
		if _, err := l.Redeem(ctx, fmt.Sprintf("ws:guesser%d", i), "WRONGCOD"); !errors.Is(err, ErrBadCode) {
			t.Fatalf("wrong code: %v", err)
		}
	}
	if _, err := l.Redeem(ctx, "tg:66", code); !errors.Is(err, ErrTooManyTries) {
		t.Errorf("after %d wrong codes: %v", maxFailures, err)
	}
	if l.Resolve("tg:66") != "tg:66" {
		t.Error("linked without the code")
	}
	clk.Advance(CodeTTL)
	if _, err := l.Redeem(ctx, "tg:42", code); !errors.Is(err, ErrBadCode) {
		t.Errorf("an expired code: %v", err)
	}
	// A new code replaces the account's old one.
	first, _, _ := l.Issue(ctx, "ws:erin")
	second, _, _ := l.Issue(ctx, "ws:erin")
	if _, err := l.Redeem(ctx, "tg:42", first); !errors.Is(err, ErrBadCode) {
		t.Errorf("a replaced code: %v", err)
	}
	if p, err := l.Redeem(ctx, "tg:42", second); err != nil || p != "ws:erin" {
		t.Errorf("the newest code: %q %v", p, err)
	}
}

// A person's accounts move together: linking the person's own account to
// a third one takes its linked accounts along; unlinking the person's own
// account separates all of them.
func TestLinkMovesLinkedAccounts(t *testing.T) {
	ctx := context.Background()
	l, _ := openLinks(t, nil)
	link := func(shown, typed string) {
		t.Helper()
		code, _, err := l.Issue(ctx, shown)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Redeem(ctx, typed, code); err != nil {
			t.Fatal(err)
		}
	}
	link("ws:erin", "tg:42")
	link("local:erin", "ws:erin")
	for _, a := range []string{"tg:42", "ws:erin"} {
		if got := l.Resolve(a); got != "local:erin" {
			t.Errorf("Resolve(%s) = %q, want local:erin", a, got)
		}
	}
	gone, err := l.Unlink(ctx, "local:erin")
	if err != nil || !slices.Equal(gone, []string{"tg:42", "ws:erin"}) || len(l.All()) != 0 {
		t.Errorf("Unlink(person) = %v %v; left %v", gone, err, l.All())
	}
}
