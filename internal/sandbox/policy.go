package sandbox

import (
	"fmt"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/glob"
	"github.com/beamclaw/beamclaw-go/internal/setting"
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
	var probs setting.Problems
	pol := buildPolicy(o, probs.Under("policy"))
	return pol, probs.Err()
}

// buildPolicy records the problems of o under p (keys of sandbox.policy)
// and returns the policy of its valid rules.
func buildPolicy(o PolicyOptions, probs *setting.Problems) Policy {
	var p Policy
	switch o.DefaultAction {
	case "", "allow":
		p.allow = true
	case "deny":
	default:
		probs.Add("default_action", "%q is not allow or deny", o.DefaultAction)
	}
	for i, r := range o.Rules {
		allow, ok := r.Action == "allow", r.Action == "allow" || r.Action == "deny"
		if !ok {
			probs.Add(fmt.Sprintf("rules[%d].action", i), "%q is not allow or deny", r.Action)
		}
		if strings.TrimSpace(r.Tool) == "" {
			probs.Add(fmt.Sprintf("rules[%d].tool", i), "must name a tool (\"*\" wildcards allowed)")
			ok = false
		}
		if ok {
			p.rules = append(p.rules, policyRule{allow: allow, source: strings.Contains(r.Tool, ":"), pat: r.Tool})
		}
	}
	for _, name := range implicitDeny {
		p.rules = append(p.rules, policyRule{pat: name})
	}
	return p
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
		if !glob.Match(r.pat, subject) {
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
