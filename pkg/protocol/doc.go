// Package protocol holds the public wire types of beamclaw's HTTP, WebSocket
// and control APIs, shared by the daemon and by Go clients (pkg/client).
// Version is bumped on incompatible changes. Standard library only; it
// never imports internal packages.
package protocol

// Version of the control and WebSocket protocols.
const Version = 1
