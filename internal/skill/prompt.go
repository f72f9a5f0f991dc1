package skill

import "strings"

// InPrompt reports whether s belongs in the system prompt: eligible, and
// either clean or explicitly allowed despite its scan flags.
func (s Skill) InPrompt() bool {
	return s.Status.Eligible && (len(s.Flags) == 0 || s.Allowed)
}

// PromptSection renders the skills that belong in the system prompt (see
// InPrompt) as a "# Skills" section: one line each with name and
// description, so the agent loads a skill (the skill tool) only when it
// needs it. It returns "" when there is none.
func PromptSection(skills []Skill) string {
	var b strings.Builder
	for _, s := range skills {
		if !s.InPrompt() {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("# Skills\n\n")
			b.WriteString("When a request matches a skill, load it with the skill tool first.\n\n")
		}
		b.WriteString("- ")
		b.WriteString(s.Name)
		b.WriteString(": ")
		b.WriteString(s.Description)
		b.WriteString("\n")
	}
	return b.String()
}
