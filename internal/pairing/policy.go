package pairing

import (
	"fmt"
	"slices"
	"strings"
)

// Policy is a channel's dm_policy.
type Policy string

// Policies.
const (
	// PolicyPairing admits allow_from entries and approved peers; a
	// stranger gets a pairing code and nothing else.
	PolicyPairing Policy = "pairing"
	// PolicyAllowlist admits only allow_from entries; an empty list admits
	// nobody.
	PolicyAllowlist Policy = "allowlist"
	// PolicyOpen admits everyone.
	PolicyOpen Policy = "open"
)

// ParsePolicy accepts pairing, allowlist and open ("" = pairing).
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case "":
		return PolicyPairing, nil
	case PolicyPairing, PolicyAllowlist, PolicyOpen:
		return p, nil
	}
	return "", fmt.Errorf("%w: dm_policy %q: want pairing, allowlist or open", ErrInvalid, s)
}

// Verdict is what a Gate decided about a user.
type Verdict int

// Verdicts.
const (
	Denied       Verdict = iota // ignore the message
	Admitted                    // hand it to the agent
	NeedsPairing                // answer with a pairing code only
)

func (v Verdict) String() string {
	switch v {
	case Admitted:
		return "admitted"
	case NeedsPairing:
		return "needs_pairing"
	}
	return "denied"
}

// Gate applies a channel's dm_policy and allow_from.
type Gate struct {
	Channel   string
	Policy    Policy
	AllowFrom []string // user ids or @usernames (case-insensitive)
	Store     *Store   // approved peers; required for PolicyPairing
}

// Check decides about userID (the channel's own id); aliases are other
// names allow_from may use for the same person (a Telegram @username).
// agent is the approved peer's bound agent, "" for the channel default.
func (g Gate) Check(userID string, aliases ...string) (agent string, v Verdict) {
	if g.listed(userID, aliases) {
		if g.Store != nil {
			agent, _ = g.Store.Allowed(g.Channel, userID)
		}
		return agent, Admitted
	}
	switch g.Policy {
	case PolicyOpen:
		return "", Admitted
	case PolicyAllowlist:
		return "", Denied
	}
	if g.Store == nil {
		return "", Denied
	}
	if agent, ok := g.Store.Allowed(g.Channel, userID); ok {
		return agent, Admitted
	}
	return "", NeedsPairing
}

// listed matches allow_from entries against the id and aliases, ignoring
// case and a leading "@" (Telegram usernames never are all digits, so an
// id and a username cannot collide).
func (g Gate) listed(userID string, aliases []string) bool {
	norm := func(s string) string { return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), "@")) }
	ids := make([]string, 0, 1+len(aliases))
	for _, id := range append([]string{userID}, aliases...) {
		if n := norm(id); n != "" {
			ids = append(ids, n)
		}
	}
	return slices.ContainsFunc(g.AllowFrom, func(entry string) bool {
		return slices.Contains(ids, norm(entry))
	})
}
