package executor

import (
	"fmt"
	"math"

	"github.com/tcgen/tcgen/graph"
)

// A measured rebalance of a pivot variant split over devices. The first
// cut (multi_split.go) is at equal modelled work, but a device's time per
// unit of it depends on what its range holds: on RMAT graphs oriented by
// degree the many low-degree sources of the first range cost about twice
// as much per unit as the hubs of the last. After a pass, each device's
// measured time spread over its modelled work is its cost density; the new
// cuts are where the predicted time, each vertex's work times the density
// of the device that holds it now, reaches k/parts of the total. Only the
// ranges change (pivotSplit's lo and hi: the offsets pointer and vertex
// count of count, scatter and the core kernel); every pivot buffer is sized
// for the whole graph, so nothing is allocated or uploaded again.
//
// A split of explicit lists is not rebalanced: new slices would mean new
// list buffers, their upload and the families' host work again.

// RebalanceRound is one measured rebalance: the cuts before and after
// (parts+1 each, from 0 to n; device k counts the in-edges of the sources
// [cuts[k], cuts[k+1])), each device's measured pass time on the old cuts
// and its predicted time on the new ones.
type RebalanceRound struct {
	Before      []uint64  `json:"cuts_before,omitempty"`
	After       []uint64  `json:"cuts_after,omitempty"`
	MeasuredMs  []float64 `json:"measured_ms"`
	PredictedMs []float64 `json:"predicted_ms,omitempty"`
	// Why says why the cuts stayed as they were; empty when recut.
	Why string `json:"why,omitempty"`
}

// pivotCutter cuts the in-edge sources [0, n) of a pivot variant: each
// source's modelled work and each chunk's sum, kept from the first cut.
type pivotCutter struct {
	o    *graph.Oriented
	n    uint64
	top  uint32   // the first core vertex (n without a core)
	sums []uint64 // the work of each splitChunk sources
}

// walk visits the modelled work of the sources [lo, hi).
func (c *pivotCutter) walk(lo, hi uint64, visit func(uint64)) {
	var words []uint32 // coreANDs' scratch, one allocation a walk
	for u := lo; u < hi; u++ {
		var w uint64
		w, words = pivotSourceWork(c.o, uint32(u), c.top, words)
		visit(w + pivotItemWork)
	}
}

// work is the modelled work of the sources [a, b): whole chunks from their
// sums, the ends walked.
func (c *pivotCutter) work(a, b uint64) uint64 {
	var w uint64
	add := func(x uint64) { w += x }
	ca, cb := a/splitChunk, b/splitChunk
	if ca == cb {
		c.walk(a, b, add)
		return w
	}
	c.walk(a, (ca+1)*splitChunk, add)
	for ch := ca + 1; ch < cb; ch++ {
		w += c.sums[ch]
	}
	c.walk(cb*splitChunk, b, add)
	return w
}

// apply sets the shares ps to the ranges between cuts, of works.
func (c *pivotCutter) apply(ps []devicePart, lists []WorkList, cuts, works []uint64) {
	for k := range ps {
		ps[k] = devicePart{lists: lists, pivot: true, lo: uint32(cuts[k]), hi: uint32(cuts[k+1]), items: cuts[k+1] - cuts[k], work: works[k]}
	}
}

// densityScale is what the densities are scaled to as integer weights (the
// densest 2^20): a part in a million, below any timer's noise.
const densityScale = 1 << 20

// recut cuts again at equal predicted time, the sources of device k
// (cuts[k] to cuts[k+1], of modelled work works[k]) costing ms[k] /
// works[k] each unit. It returns the new cuts, their modelled works and
// each device's predicted time on them, or why it cannot.
func (c *pivotCutter) recut(cuts, works []uint64, ms []float64) (newCuts, newWorks []uint64, predicted []float64, why string) {
	parts := len(works)
	var sumW uint64
	sumT := 0.0
	for k := range parts {
		sumW += works[k]
		sumT += ms[k]
	}
	if sumW == 0 || !(sumT > 0) || math.IsInf(sumT, 0) {
		return nil, nil, nil, fmt.Sprintf("no time to spread: %g ms over %d units of work", sumT, sumW)
	}
	// A device without work or time takes the run's mean density.
	density := make([]float64, parts)
	top := 0.0
	for k := range parts {
		density[k] = sumT / float64(sumW)
		if works[k] > 0 && ms[k] > 0 {
			density[k] = ms[k] / float64(works[k])
		}
		top = max(top, density[k])
	}
	// Integer weights: work x q[k], the sum below 2^62 (cutChunks doubles it).
	scale := float64(min(densityScale, max(1, (uint64(1)<<62)/sumW)))
	q := make([]uint64, parts)
	for k := range q {
		q[k] = max(1, uint64(math.Round(density[k]/top*scale)))
	}
	holder := func(u uint64) int { // the device whose range holds u
		k := 0
		for k+1 < parts && cuts[k+1] <= u {
			k++
		}
		return k
	}
	walk := func(lo, hi uint64, visit func(uint64)) {
		k := holder(lo)
		c.walk(lo, hi, func(w uint64) {
			for k+1 < parts && cuts[k+1] <= lo {
				k++
			}
			visit(w * q[k])
			lo++
		})
	}
	wsums := make([]uint64, len(c.sums))
	for ch := range wsums {
		lo := uint64(ch) * splitChunk
		hi := min(lo+splitChunk, c.n)
		if k := holder(lo); hi <= cuts[k+1] {
			wsums[ch] = c.sums[ch] * q[k]
			continue
		}
		walk(lo, hi, func(w uint64) { wsums[ch] += w }) // a chunk across a cut
	}
	newCuts, wworks := cutChunks(c.n, parts, wsums, walk)
	newWorks = make([]uint64, parts)
	predicted = make([]float64, parts)
	for k := range parts {
		newWorks[k] = c.work(newCuts[k], newCuts[k+1])
		predicted[k] = float64(wworks[k]) / scale * top
	}
	return newCuts, newWorks, predicted, ""
}

// Rebalance cuts a split pivot variant again at equal predicted time from
// measured, a run of mp (its devices' median pass times), as the package
// comment above says; the next Run counts on the new ranges. It returns
// what it did, which the results of the later runs carry too.
func (mp *MultiPrepared) Rebalance(measured *Result) RebalanceRound {
	var ms []float64
	for _, d := range measured.Devices {
		ms = append(ms, d.GPUMs.Median)
	}
	return mp.RebalanceMeasured(ms)
}

// RebalanceMeasured is Rebalance from each share's measured pass time:
// one per device of PrepareMulti, or one per process of PrepareShare
// (gathered from every process, which then all cut alike and each keeps
// its own range).
func (mp *MultiPrepared) RebalanceMeasured(measuredMs []float64) RebalanceRound {
	r := RebalanceRound{MeasuredMs: measuredMs}
	shares := mp.shares
	if mp.all != nil {
		shares = mp.all
	}
	switch {
	case shares == nil:
		r.Why = "one device"
	case mp.cutter == nil:
		r.Why = "the classes' lists are cut once (new slices would be uploaded again)"
	case len(measuredMs) != len(shares):
		r.Why = fmt.Sprintf("%d shares measured of %d", len(measuredMs), len(shares))
	}
	if r.Why != "" {
		mp.rounds = append(mp.rounds, r)
		return r
	}
	works := make([]uint64, len(shares))
	r.Before = make([]uint64, len(shares)+1)
	for k, sh := range shares {
		works[k], r.Before[k], r.Before[k+1] = sh.work, uint64(sh.lo), uint64(sh.hi)
	}
	cuts, newWorks, predicted, why := mp.cutter.recut(r.Before, works, measuredMs)
	if why != "" {
		r.Why = why
		mp.rounds = append(mp.rounds, r)
		return r
	}
	r.After, r.PredictedMs = cuts, predicted
	mp.cutter.apply(shares, shares[0].lists, cuts, newWorks)
	if mp.all != nil {
		mp.shares[0] = mp.all[mp.rank]
	}
	for k, pr := range mp.parts {
		for _, f := range pr.families {
			if ph, ok := f.(*pivotFamily); ok && ph.split != nil {
				ph.split.lo, ph.split.hi = mp.shares[k].lo, mp.shares[k].hi
			}
		}
	}
	mp.rounds = append(mp.rounds, r)
	return r
}
