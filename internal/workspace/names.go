package workspace

import (
	"slices"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// The workspace files, by name.
const (
	FileIdentity  = "IDENTITY.md"
	FileSoul      = "SOUL.md"
	FileUser      = "USER.md"
	FileTools     = "TOOLS.md"
	FileAgents    = "AGENTS.md"
	FileBootstrap = "BOOTSTRAP.md"
	FileMemory    = "MEMORY.md"

	// DailyDir is the directory of the daily logs inside a workspace.
	DailyDir = "memory"
	// DateLayout is the layout of a daily log's date (and file stem).
	DateLayout = "2006-01-02"
	// DefaultAgent is the agent used when none is named.
	DefaultAgent = "default"
)

// promptOrder is the order in which the workspace files enter the system
// prompt: MEMORY last, closest to the conversation.
var promptOrder = [...]string{
	FileIdentity, FileSoul, FileUser, FileTools, FileAgents, FileBootstrap, FileMemory,
}

// Files returns the workspace files in system-prompt order.
func Files() []string { return slices.Clone(promptOrder[:]) }

// ValidName reports whether name can name an agent: 1 to 64 characters
// of lower-case letters, digits, '-' and '_', starting with a letter or a
// digit. Anything else (path separators, dots, upper case) is KindInvalid.
func ValidName(name string) error {
	if !beamclaw.IsName(name) {
		return beamclaw.E("workspace.ValidName", beamclaw.KindInvalid,
			"agent names use "+beamclaw.NameRule, nil)
	}
	return nil
}

// ValidFile reports whether file is one of the seven workspace files
// (exact, case-sensitive). Anything else is KindInvalid.
func ValidFile(file string) error {
	if !slices.Contains(promptOrder[:], file) {
		return beamclaw.E("workspace.ValidFile", beamclaw.KindInvalid,
			"unknown workspace file "+quoteShort(file)+"; use one of IDENTITY.md, SOUL.md, USER.md, TOOLS.md, AGENTS.md, BOOTSTRAP.md, MEMORY.md", nil)
	}
	return nil
}

// quoteShort quotes s for an error message, cutting it to a sane length.
func quoteShort(s string) string {
	const max = 64
	if len(s) > max {
		s = s[:max] + "..."
	}
	return `"` + s + `"`
}
