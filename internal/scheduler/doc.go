// Package scheduler holds beamclaw's scheduled work: jobs and their
// bounded run history in bbolt (buckets sched_jobs and sched_runs, owned
// here), the schedule forms (one-shot, interval, cron in an IANA zone,
// random slots) with their DST rules, the runner (one timer for the
// earliest job) and the executor (agent turns, delivery, backoff,
// auto-pause) as separate suture services, heartbeats driven by each
// agent's HEARTBEAT.md, the agents' scheduler tool, and the management
// API the CLI calls.
//
// It is a core package. It reaches sessions and channels only through the
// interfaces it declares (Turns, Deliverer, Emitter); the daemon, its only
// importer, builds a Scheduler from config and hands those in.
package scheduler
