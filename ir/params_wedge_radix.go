package ir

import "fmt"

// radixProblem says why a wedge/radix strategy's parameters do not go
// together, or "". A bucket of at most 2^radix_bits candidates cannot shrink
// on average by splitting it into 2^radix_bits buckets, so such a bucket is
// intersected directly: threshold >= 2^radix_bits. This also bounds what a
// batch needs per candidate (gen/wedge_radix.go, runtime/executor): a split
// bucket then holds more candidates than it has children, so the child
// records of a level are fewer than its candidates.
func radixProblem(s Strategy) string {
	if s.Iterator != IterWedge || s.Intersection != Radix {
		return ""
	}
	thr, d := Get(s, ParamThreshold), int64(1)<<Get(s, ParamRadixBits)
	if thr < d {
		return fmt.Sprintf("threshold (%d) must be at least 2^radix_bits (%d): a bucket of at most 2^radix_bits candidates is intersected directly, not split into 2^radix_bits buckets", thr, d)
	}
	return ""
}
