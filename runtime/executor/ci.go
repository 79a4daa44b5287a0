package executor

import (
	"math"
	"slices"
)

// ciLevel is the least coverage MedianCI's interval has: the usual 95%.
const ciLevel = 0.95

// MedianCIRanks are the 1-based ranks (lo, hi = n+1-lo) of the sorted
// samples that bound a distribution-free confidence interval of the median
// of n samples: lo is the largest rank whose interval covers the median
// with probability at least 95%, computed exactly from the binomial
// distribution (each sample falls below the median with probability 1/2,
// so the coverage of [x(lo), x(n+1-lo)] is 1 - 2 P(Bin(n, 1/2) < lo)).
// Below 6 samples even [min, max] covers less than 95% (1 - 2/2^n); the
// ranks are then 1 and n, and ok is false. n < 1 gives 0, 0, false.
func MedianCIRanks(n int) (lo, hi int, ok bool) {
	if n < 1 {
		return 0, 0, false
	}
	lo = 1
	for k := 2; k <= (n+1)/2; k++ {
		if medianCoverage(n, k) < ciLevel {
			break
		}
		lo = k
	}
	return lo, n + 1 - lo, medianCoverage(n, lo) >= ciLevel
}

// medianCoverage is the probability that [x(k), x(n+1-k)] of n samples
// holds the median: 1 - 2 P(Bin(n, 1/2) <= k-1).
func medianCoverage(n, k int) float64 {
	tail := 0.0
	for j := range k {
		tail += binomHalf(n, j)
	}
	return 1 - 2*tail
}

// binomHalf is P(Bin(n, 1/2) = j), through logarithms so large n does not
// overflow.
func binomHalf(n, j int) float64 {
	ln, _ := math.Lgamma(float64(n + 1))
	lj, _ := math.Lgamma(float64(j + 1))
	lnj, _ := math.Lgamma(float64(n - j + 1))
	return math.Exp(ln - lj - lnj - float64(n)*math.Ln2)
}

// MedianCI is the 95% distribution-free confidence interval of the median
// of samples: the sorted samples at MedianCIRanks (with fewer than 6
// samples, [min, max], which covers less). No samples give 0, 0.
func MedianCI(samples []float64) (lo, hi float64) {
	l, h, _ := MedianCIRanks(len(samples))
	if l == 0 {
		return 0, 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return s[l-1], s[h-1]
}
