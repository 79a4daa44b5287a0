//go:build !unix

package graph

// cpuSeconds is not measured here: BenchmarkGenerators reports 0.
func cpuSeconds() float64 { return 0 }
