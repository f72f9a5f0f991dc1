package beamclaw

// Build describes the binary, from -ldflags and the Go build info.
type Build struct {
	Version   string
	Commit    string
	GoVersion string
}

// Ready is what a daemon tells its starter once it serves.
type Ready struct {
	PID      int
	HTTPAddr string
	Socket   string
}

// Location is where a daemon's files are, found without reading its
// config (a broken config must not stop `beamclaw stop`).
type Location struct {
	Home, Socket, LogFile, PIDFile string
}
