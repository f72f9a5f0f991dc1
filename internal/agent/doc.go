// Package agent is the runtime of beamclaw's agents: for each agent, the
// system prompt assembled from its workspace files, its eligible skills
// and (with auto_context) the memory that best matches the input; memory
// search over the workspace and keyed notes; the memory flush before
// compaction; and the skill texts the skill tool loads.
//
// It is core: it imports workspace, skill, memory, store and the tool
// interfaces of tool/builtin it implements. The daemon builds one Runtime
// from config and hands its methods to the loop and the tools.
package agent
