// Package control holds the control API: the HTTP handlers the daemon
// serves on its control socket (status of MCP servers and their logins,
// pairing, the database, sessions, the scheduler, the code sandbox), their
// error mapping, and the wire conversions and operations the CLI's
// offline paths share with them (internal/admin calls them when no daemon
// runs), so that there is one copy of each.
//
// It is part of the root: internal/daemon mounts Routes and internal/admin
// uses its operations; it never imports config (what a handler needs of
// the config comes in Deps as plain values).
package control
