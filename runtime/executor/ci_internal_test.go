package executor

import (
	"math"
	"testing"
)

// The ranks against hand-computed binomial tails: for n = 10, P(B <= 1) =
// 11/1024, so [x(2), x(9)] covers 97.85%, while [x(3), x(8)] (P(B <= 2) =
// 56/1024) covers only 89.06%.
func TestMedianCIRanks(t *testing.T) {
	for _, c := range []struct {
		n, lo, hi int
		ok        bool
	}{
		{0, 0, 0, false},
		{1, 1, 1, false},
		{5, 1, 5, false}, // [min, max] covers 1 - 2/32 = 93.75%
		{6, 1, 6, true},  // 1 - 2/64 = 96.9%
		{8, 1, 8, true},  // [x(2), x(7)] covers 1 - 2*9/256 = 93.0%
		{9, 2, 8, true},  // 1 - 2*10/512 = 96.1%
		{10, 2, 9, true},
		{20, 6, 15, true}, // P(B <= 5) = 21700/2^20: 95.9%; P(B <= 6) = 60460/2^20: 88.5%
		{100, 40, 61, true},
	} {
		lo, hi, ok := MedianCIRanks(c.n)
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("n=%d: ranks %d, %d (%v), want %d, %d (%v)", c.n, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
	if got, want := medianCoverage(10, 2), 1-2*11.0/1024; math.Abs(got-want) > 1e-12 {
		t.Errorf("coverage of n=10 ranks 2, 9: %v, want %v", got, want)
	}
	if got, want := medianCoverage(10, 3), 1-2*56.0/1024; math.Abs(got-want) > 1e-12 {
		t.Errorf("coverage of n=10 ranks 3, 8: %v, want %v", got, want)
	}
}

func TestMedianCI(t *testing.T) {
	// Unsorted: the 2nd and 9th smallest of ten.
	lo, hi := MedianCI([]float64{9, 1, 8, 2, 7, 3, 6, 4, 5, 10})
	if lo != 2 || hi != 9 {
		t.Errorf("n=10: [%v, %v], want [2, 9]", lo, hi)
	}
	if lo, hi := MedianCI([]float64{3, 1, 2}); lo != 1 || hi != 3 {
		t.Errorf("n=3: [%v, %v], want [1, 3] (min, max)", lo, hi)
	}
	if lo, hi := MedianCI(nil); lo != 0 || hi != 0 {
		t.Errorf("no samples: [%v, %v], want [0, 0]", lo, hi)
	}
}
