// Package clock is beamclaw's one time source for domain code: Clock
// (Now, After, NewTimer, NewTicker, AfterFunc), the System clock over the
// time package, Every (the loop of a chore on a period), and Fake, a
// clock moved by hand for tests of time-driven code (restart budgets,
// hibernation, schedules, rate limits, retries, cache lifetimes). Every
// package that reads the time or waits on it takes a Clock in its Options
// and defaults it to System (Or). It imports only the standard library;
// anything may import it.
package clock
