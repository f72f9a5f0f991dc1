//go:build amd64 && !purego

package search

import "golang.org/x/sys/cpu"

// hasFMA is fixed at start-up from the CPU's feature flags.
var hasFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dotFMA returns the dot product of a and b, whose equal length is a
// multiple of 8, using AVX2 fused multiply-add (dot_amd64.s).
//
//go:noescape
func dotFMA(a, b []float32) float32

func dot(a, b []float32) float32 {
	if !hasFMA || len(a) < 8 {
		return dotGeneric(a, b)
	}
	n := len(a) &^ 7
	return dotFMA(a[:n], b[:n]) + dotGeneric(a[n:], b[n:])
}
