// Package workspace holds agent workspaces: the directories under
// $BEAMCLAW_HOME/agents/<name>/ with their markdown files (IDENTITY.md,
// SOUL.md, USER.md, TOOLS.md, AGENTS.md, BOOTSTRAP.md, MEMORY.md), the
// daily logs in memory/YYYY-MM-DD.md, the default templates, and the
// assembly of those files into an agent's system prompt.
//
// Every file access goes through an os.Root opened on the agent's
// directory, so "..", absolute paths and symlinks that leave the
// workspace fail closed. (The file tools in tool/builtin confine their
// own paths the same way, against the workspace and tools.file_roots.)
//
// The core packages (loop, tool/builtin, memory, skill, session), the
// daemon and the CLI may import it. It imports only internal/beamclaw.
package workspace
