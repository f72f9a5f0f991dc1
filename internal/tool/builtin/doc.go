// Package builtin holds the tools every agent gets: bash, terminal, curl,
// jq, read_file, write_file, delete_file, web_search, workspace_memory and
// skill. Each has a constructor taking its own Options; Defaults builds the
// set (the daemon leaves out both shells with tools.bash.enabled: false).
//
// Tools here defend themselves (confined paths, SSRF guard, filtered child
// environments, process-group kills) and do not rely on the registry's
// schema check alone. Workspaces, memory and skills are reached only
// through the small Workspace, MemorySearch, Notes and SkillReader
// interfaces declared here, which internal/agent implements.
//
// Imported by the daemon (composition root), internal/agent and tests.
package builtin
