// Package builtin holds the tools every agent gets: bash, terminal, curl,
// jq, read_file, write_file, delete_file, web_search and workspace_memory.
// Each has a constructor taking its own Options; Defaults builds the set.
//
// Tools here defend themselves (confined paths, SSRF guard, filtered child
// environments, process-group kills) and do not rely on the registry's
// schema check alone. The workspace and memory packages are reached only
// through the small Workspace and MemorySearch interfaces declared here,
// which the daemon adapts.
//
// Imported by the daemon (composition root) and by tests.
package builtin
