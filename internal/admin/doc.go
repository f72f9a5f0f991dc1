// Package admin carries out beamclaw's administrative operations for one
// config file: config check and show, doctor, agents, skills, MCP servers,
// pairing and the code sandbox. With a daemon running it goes through the
// daemon's control socket; without one it works on the files, the
// database and the Docker engine directly (with internal/control's
// operations and wire conversions, which the daemon's control routes
// share). It implements the CLI's Backend.
//
// It is part of the root: it imports config and the domain packages; it
// never imports the daemon (main hands it the daemon's Run).
package admin
