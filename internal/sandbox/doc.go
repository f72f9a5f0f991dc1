// Package sandbox runs scripts an agent writes in hardened, long-lived
// Docker containers, and lets those scripts call the agent's tools back
// through a bridge ("Code Execution with MCP"): the script does the
// plumbing, only its result returns to the model.
//
// It is an adapter: it imports the beamclaw vocabulary, the leaves
// (clock, supervise), the image files in docker/sandbox and the Docker
// engine client (github.com/moby/moby/client, API version negotiated;
// never the docker CLI). Whatever it needs from the core is handed in:
// the tool registry and approval path as the Tools interface, session
// liveness as a function, the scrubber as a function. The daemon builds
// a Manager from config (InstallID keeps the installation's id) and runs
// its Gate, which adds Manager.Services to the tree and registers the
// exec tool (NewExecTool) once Check passes, and says why not until then;
// the bridge dispatches through RunTools, the calling run's own
// beamclaw.ToolCaller. The CLI calls BuildImage, Manager.Status, List and
// Kill.
//
// # Containers
//
// One container per scope (a session, an agent, or one shared by all),
// created on first use and kept: its runner (docker/sandbox/runner.py,
// the container's main process under docker-init) connects once to a
// Unix socket the daemon listens on in a per-container directory that is
// bind-mounted read-only at /run/beamclaw, and receives every script over
// that stream (never argv). Each run is a user of its own (a fresh uid,
// its session's group, the sandbox group 10001, no capability); on its
// timeout, a kill request or the end of its main process, every process of
// that uid is killed from inside, however it detached. The container has
// no network (by default), drops every capability but the runner's SETUID,
// SETGID and KILL, has no-new-privileges and a read-only root, a noexec /tmp
// tmpfs, pids, memory (= memory+swap) and CPU limits, a capped json-file
// log, and labels beamclaw.install, beamclaw.session, beamclaw.posture
// (a hash of the hardening settings and the image) and beamclaw.daemon
// (boot id, pid and start time of the daemon process that owns it). When
// the daemon's connection closes, the runner exits and the container
// stops; the reaper removes what is left.
//
// # Bridge
//
// The same directory holds bridge.sock (JSON-RPC 2.0, one object per
// line: search_tools, get_tool, call_tool) and is where /tools
// (index.txt, <tool>/description.txt, <tool>/schema.json) is written for
// discovery. Every request carries the run's token; the bridge acts for
// the Caller of that run only, filtered by the sandbox policy, and
// through Tools, which applies the session's own policy and approvals.
//
// # Services
//
// Manager.Services returns the registry (a supervisor holding one
// service per live container) and the reaper, both wrapped by
// supervise.Guard.
package sandbox
