//go:build !amd64 || purego

package search

func dot(a, b []float32) float32 { return dotGeneric(a, b) }
