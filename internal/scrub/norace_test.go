//go:build !race

package scrub

const raceEnabled = false
