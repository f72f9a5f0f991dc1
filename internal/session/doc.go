// Package session holds the session registry (Manager): the durable
// "lane" of each conversation (history, metadata, the FIFO of pending
// runs, approvals), its per-session suture supervisor with a lane service
// and a restartable loop service, hibernation of idle sessions, the
// session cleaner, and persistence of history in bbolt, with the tool
// outputs a session keeps whole because the model got only a view of them
// (output.go: bucket session_outputs, written with the step that names
// them; tool_output reads them through Manager.Output).
//
// Channels and the gateway reach it through the small interfaces they
// declare; only the daemon constructs a Manager.
package session
