package search

import "testing"

func BenchmarkDot256(b *testing.B) {
	x := make([]float32, 256)
	y := make([]float32, 256)
	for i := range x {
		x[i], y[i] = float32(i), float32(256-i)
	}
	b.ReportAllocs()
	var s float32
	for b.Loop() {
		s += Dot(x, y)
	}
	_ = s
}
