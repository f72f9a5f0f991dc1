package beamclaw

import "fmt"

// Autonomy is how far an agent may act without asking: read_only denies
// every tool that needs approval, supervised asks, full runs without asking.
type Autonomy string

// Autonomy levels, from least to most trusted.
const (
	ReadOnly   Autonomy = "read_only"
	Supervised Autonomy = "supervised"
	Full       Autonomy = "full"
)

// AutonomyLevels are the levels' names, least trusted first (for config
// enumerations and messages).
func AutonomyLevels() []string { return []string{string(ReadOnly), string(Supervised), string(Full)} }

// ParseAutonomy turns a config or wire string into an Autonomy.
func ParseAutonomy(s string) (Autonomy, error) {
	switch a := Autonomy(s); a {
	case ReadOnly, Supervised, Full:
		return a, nil
	}
	return "", fmt.Errorf("autonomy %q: want read_only, supervised or full", s)
}

// Rank orders levels: read_only < supervised < full. Unknown ranks lowest.
func (a Autonomy) Rank() int {
	switch a {
	case Supervised:
		return 1
	case Full:
		return 2
	}
	return 0
}

// AtLeast reports whether a is at least as trusted as b.
func (a Autonomy) AtLeast(b Autonomy) bool { return a.Rank() >= b.Rank() }

// Min returns the less trusted of a and b.
func (a Autonomy) Min(b Autonomy) Autonomy {
	if a.Rank() <= b.Rank() {
		return a
	}
	return b
}
