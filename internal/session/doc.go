// Package session holds the session registry (Manager): the durable
// "lane" of each conversation (history, metadata, the FIFO of pending
// runs, approvals), its per-session suture supervisor with a lane service
// and a restartable loop service, hibernation of idle sessions, the
// session cleaner, and persistence of history in bbolt.
//
// Channels and the gateway reach it through the small interfaces they
// declare; only the daemon constructs a Manager.
package session
