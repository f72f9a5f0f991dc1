package skill

import "strings"

// InPrompt reports whether s belongs in the system prompt: eligible, and
// either clean or explicitly allowed despite its scan flags.
func (s Skill) InPrompt() bool {
	return s.Status.Eligible && (len(s.Flags) == 0 || s.Allowed)
}

// PromptSection renders the skills that belong in the system prompt (see
// InPrompt) as a "# Skills" section: one line each with name,
// description and path, so the agent reads a SKILL.md only when it needs
// it. It returns "" when there is none.
func PromptSection(skills []Skill) string {
	var b strings.Builder
	for _, s := range skills {
		if !s.InPrompt() {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("# Skills\n\n")
			b.WriteString("Skills are instructions for particular tasks. When a request matches a skill, load its instructions with the skill tool ({\"name\": \"<skill>\"}) first and follow them.\n\n")
		}
		b.WriteString("- ")
		b.WriteString(s.Name)
		b.WriteString(": ")
		b.WriteString(s.Description)
		b.WriteString(" (")
		b.WriteString(s.Path)
		b.WriteString(")\n")
	}
	return b.String()
}
