// Package skill holds SKILL.md skills: parsing (YAML front matter and a
// markdown body), discovery from the bundled, global and per-agent skill
// directories, eligibility checks (binaries, environment, OS), a security
// scan for dangerous instructions, installation of declared dependencies
// through an injected runner, and the listing of skills in the system
// prompt.
//
// The loop, the daemon and the CLI may import it. It imports only
// internal/beamclaw and the YAML library.
package skill
