package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// ExecToolName is the sandbox's own tool; a script may never call it.
const ExecToolName = "exec"

// implicitDeny follows the configured rules: these tools run programs on
// the host, so a script gets them only through an explicit allow rule.
var implicitDeny = []string{"bash", "terminal"}

// Policy decides which tools a sandboxed script may see and call: the
// configured rules in order, first match wins, then deny for bash and
// terminal, then the default action. exec itself is always denied.
type Policy struct {
	rules []policyRule
	allow bool // the default action
}

type policyRule struct {
	allow  bool
	source bool // the pattern names a source ("mcp:*"), not a tool
	pat    string
}

func newPolicy(o PolicyOptions) (Policy, error) {
	var p Policy
	var errs []error
	switch o.DefaultAction {
	case "", "allow":
		p.allow = true
	case "deny":
	default:
		errs = append(errs, fmt.Errorf("policy default_action %q is not allow or deny", o.DefaultAction))
	}
	for i, r := range o.Rules {
		var allow bool
		switch r.Action {
		case "allow":
			allow = true
		case "deny":
		default:
			errs = append(errs, fmt.Errorf("policy rule %d: action %q is not allow or deny", i, r.Action))
			continue
		}
		if strings.TrimSpace(r.Tool) == "" {
			errs = append(errs, fmt.Errorf("policy rule %d: tool is empty", i))
			continue
		}
		p.rules = append(p.rules, policyRule{allow: allow, source: strings.Contains(r.Tool, ":"), pat: r.Tool})
	}
	for _, name := range implicitDeny {
		p.rules = append(p.rules, policyRule{pat: name})
	}
	return p, errors.Join(errs...)
}

// Allows reports whether a script may use t, and when not, why (a
// sentence for the script's error).
func (p Policy) Allows(t ToolInfo) (bool, string) {
	if t.Name == ExecToolName {
		return false, "tool exec cannot be called from inside the sandbox"
	}
	for _, r := range p.rules {
		subject := t.Name
		if r.source {
			subject = t.Source
		}
		if !glob(r.pat, subject) {
			continue
		}
		if r.allow {
			return true, ""
		}
		return false, fmt.Sprintf("tool %s is denied to sandboxed scripts by sandbox.policy (rule %q)", t.Name, r.pat)
	}
	if p.allow {
		return true, ""
	}
	return false, fmt.Sprintf("tool %s is not allowed to sandboxed scripts (sandbox.policy default_action is deny)", t.Name)
}

// glob matches s against p, where '*' matches any run of characters.
func glob(p, s string) bool {
	parts := strings.Split(p, "*")
	if len(parts) == 1 {
		return p == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}
