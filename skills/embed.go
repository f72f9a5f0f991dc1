// Package skills holds the SKILL.md skills bundled with beamclaw, embedded
// into the binary. Only internal/skill (and the daemon or CLI wiring it)
// should import it; it exists because go:embed cannot reach a parent
// directory.
package skills

import "embed"

// FS holds every bundled skill as <name>/SKILL.md.
//
//go:embed */SKILL.md
var FS embed.FS
