package protocol

// SandboxStatus is `beamclaw sandbox status`: the code sandbox's
// settings, the Docker engine, the image and this installation's
// containers. Daemon is true when a running daemon answered (ExecOn then
// says whether it offers exec); Problem is why exec cannot run, with the
// fix ("" when it can).
type SandboxStatus struct {
	Daemon        bool     `json:"daemon"`
	Enabled       bool     `json:"enabled"` // sandbox.enabled
	ExecOn        bool     `json:"exec_on"`
	Problem       string   `json:"problem,omitempty"`
	Fix           string   `json:"fix,omitempty"` // what to do about Problem
	InstallID     string   `json:"install_id"`
	Engine        string   `json:"engine"` // the engine's address
	EngineOK      bool     `json:"engine_ok"`
	EngineVersion string   `json:"engine_version,omitempty"`
	APIVersion    string   `json:"api_version,omitempty"` // negotiated
	Image         string   `json:"image"`
	ImageID       string   `json:"image_id,omitempty"` // "" when not built
	ImageCurrent  bool     `json:"image_current"`      // built from this binary's files
	Runtime       string   `json:"runtime"`
	RuntimeOK     bool     `json:"runtime_ok"`
	Runtimes      []string `json:"runtimes,omitempty"` // the engine's
	Containers    int      `json:"containers"`
}

// SandboxContainer is one of this installation's sandbox containers.
type SandboxContainer struct {
	ID       string `json:"id"` // short id
	Name     string `json:"name"`
	Scope    string `json:"scope"`
	Session  string `json:"session,omitempty"`
	Agent    string `json:"agent,omitempty"`
	State    string `json:"state"`  // running, exited, ...
	Status   string `json:"status"` // the engine's "Up 3 minutes"
	Created  string `json:"created"`
	Mine     bool   `json:"mine"` // owned by the daemon that answered
	InFlight int    `json:"in_flight"`
}

// SandboxContainers is the body of GET /control/sandbox/containers.
type SandboxContainers struct {
	Daemon     bool               `json:"daemon"`
	Containers []SandboxContainer `json:"containers"`
}

// SandboxKillRequest names a container (name, or a prefix of its name or
// id) to remove: `beamclaw sandbox kill`.
type SandboxKillRequest struct {
	Container string `json:"container"`
}

// SandboxBuild is what `beamclaw sandbox build` did.
type SandboxBuild struct {
	Image     string `json:"image"`
	ImageID   string `json:"image_id"`
	Built     bool   `json:"built"` // false: it was up to date
	Base      string `json:"base"`
	BaseBuilt bool   `json:"base_built"`
	// Daemon is the running daemon's view after the build (nil when none
	// runs): it checks again, so exec is on now if nothing else is wrong.
	Daemon *SandboxStatus `json:"daemon,omitempty"`
}
