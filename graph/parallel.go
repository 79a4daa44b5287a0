package graph

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// workersFor returns how many goroutines to use for n items of work when
// each should get at least minPer items.
func workersFor(n, minPer int) int {
	p := runtime.GOMAXPROCS(0)
	if q := n / minPer; q < p {
		p = q
	}
	return max(p, 1)
}

// split returns worker w's half-open share of n items among p workers.
func split(n, p, w int) (lo, hi int) {
	return n * w / p, n * (w + 1) / p
}

// runWorkers runs fn(0..p-1) concurrently and waits.
func runWorkers(p int, fn func(w int)) {
	if p == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		wg.Go(func() { fn(w) })
	}
	wg.Wait()
}

// parallelEach calls fn(i) for i in [0, n) on up to GOMAXPROCS goroutines,
// handing out indices dynamically (items may differ in cost). fn must only
// write state owned by item i.
func parallelEach(n int, fn func(i int)) {
	p := min(runtime.GOMAXPROCS(0), n)
	if p <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	runWorkers(p, func(int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			fn(i)
		}
	})
}

// CheckStructure verifies what any CSR must satisfy before it is indexed:
// Offsets starts at 0, never decreases and ends at len(Adj), and every
