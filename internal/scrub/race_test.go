//go:build race

package scrub

// raceEnabled: the race detector makes sync.Pool (used by regexp) drop
// items, so allocation counts are meaningless under -race.
const raceEnabled = true
