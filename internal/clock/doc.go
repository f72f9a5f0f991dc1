// Package clock is beamclaw's one time source: Clock (Now, After), the
// System clock, and Fake, a clock moved by hand for tests of time-driven
// code (restart budgets, hibernation, schedules, rate limits). Every
// package that reads the time takes a Clock in its Options and defaults it
// to System. It imports only the standard library; anything may import it.
package clock
