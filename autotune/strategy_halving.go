package autotune

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// halving is successive halving: a bracket measures a random sample with a
// few timed passes, keeps the best third, measures those with three times
// the passes, and so on until the last survivors get a full evaluation;
// brackets repeat with fresh samples while the budget lasts. Short
// measurements are enough to discard the many clearly slow candidates, so
// most GPU time goes to the close contest among the fast ones.
type halving struct{}

func (halving) Name() string { return "halving" }

const (
	// halvingEta is the growth of runs from rung to rung and the inverse
	// of the share kept.
	halvingEta = 3
	// halvingShare: a bracket samples 1/halvingShare of the evaluations
	// left, so many brackets run and each later one samples from a model
	// of all the measurements before it (fewer, larger brackets measured
	// worse on the synthetic recordings of the large space).
	halvingShare = 10
	// halvingMin is the smallest useful bracket: enough to discard some.
	halvingMin = 8
	// halvingLocal is the share of a later bracket the model chooses; the
	// rest is drawn at random to keep looking elsewhere.
	halvingLocal = 0.9
	// halvingOver: the model draws this many times the points it chooses
	// from its good density and keeps those of the best l(x)/g(x), as a
	// TPE step does.
	halvingOver = 4
	// halvingNearShare is the most of a bracket taken near the best, and
	// halvingNear the most axes in which such a point may differ from it.
	halvingNearShare = 0.4
	halvingNear      = 2
)

func (halving) Search(s *Session) error {
	rungs := halvingRungs(s.Runs())
	m := newTPEModel(s.Cands())
	first := true
	for {
		pool := strategyUnseen(s)
		if len(pool) == 0 {
			return nil
		}
		s.Rand().Shuffle(len(pool), func(a, b int) { pool[a], pool[b] = pool[b], pool[a] })
		if first {
			pool = strategyStartFirst(s, pool)
			first = false
		}
		n := halvingSize(s, len(pool), rungs)
		if !halvingBracket(s, halvingSample(s, m, pool, n), halvingUse(n, rungs)) {
			return nil
		}
	}
}

// halvingSample takes n of the shuffled unseen pool. Once anything was
// measured OK, halvingLocal of it is chosen: first up to halvingNearShare
// of n among the closest neighbours of the best (fewest differing axes, at
// most halvingNear), which refine what earlier brackets found; then the
// best l(x)/g(x) of draws from the good density of a TPE model fit on
// every measurement so far at the fidelity it had (BOHB: Falkner et al.,
// ICML 2018). The rest is random, to keep looking elsewhere. Uniform
// brackets alone measure no better than random search per evaluation.
func halvingSample(s *Session, m *tpeModel, pool []int, n int) []int {
	local := int(math.Round(halvingLocal * float64(n)))
	if local == 0 || !m.fit(halvingObs(s)) {
		return pool[:n]
	}
	out := halvingNearBest(s, pool, min(local, int(math.Ceil(halvingNearShare*float64(n)))))
	taken := make(map[int]bool, n)
	for _, i := range out {
		taken[i] = true
	}
	var rest []int
	for _, i := range pool {
		if !taken[i] {
			rest = append(rest, i)
		}
	}
	if want := local - len(out); want > 0 {
		drawn, ratio := m.drawL(rest, s.Rand(), halvingOver*want)
		order := make([]int, len(drawn))
		for k := range order {
			order[k] = k
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ratio[b], ratio[a]) })
		for _, k := range order[:min(want, len(order))] {
			out = append(out, drawn[k])
			taken[drawn[k]] = true
		}
	}
	for _, i := range pool {
		if len(out) == n {
			break
		}
		if !taken[i] {
			out = append(out, i)
			taken[i] = true
		}
	}
	return out
}

// halvingNearBest is up to k points of pool closest to the best full
// evaluation (fewest differing axes, at most halvingNear), in pool order
// among equals.
func halvingNearBest(s *Session, pool []int, k int) []int {
	best, _ := s.Best()
	if best < 0 || k <= 0 {
		return nil
	}
	c := s.Cands()
	bp := c.Points[best]
	type near struct{ i, d int }
	var close []near
	for _, i := range pool {
		d := 0
		for e, v := range c.Points[i] {
			if e >= len(bp) || v != bp[e] {
				d++
			}
		}
		if d <= halvingNear {
			close = append(close, near{i, d})
		}
	}
	slices.SortStableFunc(close, func(a, b near) int { return cmp.Compare(a.d, b.d) })
	var out []int
	for _, x := range close[:min(k, len(close))] {
		out = append(out, x.i)
	}
	return out
}

// halvingObs is every point measured so far with its score at the
// fidelity it was measured (+Inf for a failure), in index order.
func halvingObs(s *Session) []tpeObs {
	out := make([]tpeObs, 0, len(s.memo))
	for i, r := range s.memo {
		out = append(out, tpeObs{i, r.res.Score})
	}
	slices.SortFunc(out, func(a, b tpeObs) int { return cmp.Compare(a.i, b.i) })
	return out
}

// halvingRungs are the runs of each rung, fewest first, ending with full
// fidelity: full/eta^k rounded, for as long as that is at least one pass
// (10 runs: 1, 3, 10).
func halvingRungs(full int) []int {
	var r []int
	for f := float64(full); f >= 1; f /= halvingEta {
		v := int(math.Round(f))
		if len(r) == 0 || v != r[len(r)-1] {
			r = append(r, v)
		}
	}
	slices.Reverse(r)
	return r
}

// halvingUse is the rungs a bracket of n candidates uses: the top ones, as
// many as leave at least one survivor per eta-fold cut (a lone candidate
// gets a full evaluation straight away).
func halvingUse(n int, rungs []int) []int {
	k := 1
	for m := n; m >= halvingEta && k < len(rungs); m /= halvingEta {
		k++
	}
	return rungs[len(rungs)-k:]
}

// halvingCost is the evaluations of a bracket of n candidates, and its time
// under the per-evaluation estimate t (nil: no estimate).
func halvingCost(n int, rungs []int, t func(runs int) time.Duration) (int, time.Duration) {
	evals, dur, m := 0, time.Duration(0), n
	for _, r := range halvingUse(n, rungs) {
		evals += m
		if t != nil {
			dur += time.Duration(m) * t(r)
		}
		m = (m + halvingEta - 1) / halvingEta
	}
	return evals, dur
}

// halvingSize is the next bracket's sample: a third of the evaluations
// left (a tenth of the space when they are not limited), at least
// halvingMin, then shrunk until the whole bracket fits in the evaluations
// and the time left, so its survivors reach the full evaluation that can
// make a best. Under a time limit the first bracket is a small one that
// shows what an evaluation costs. At least 1: with nothing left, the
// search (its Session) is asked anyway and reports which budget ran out.
func halvingSize(s *Session, pool int, rungs []int) int {
	rem := s.Remaining()
	left, timed := s.timeLeft()
	n := max(halvingMin, len(s.Cands().Points)/10)
	if rem >= 0 {
		n = max(halvingMin, rem/halvingShare)
	}
	n = min(n, pool)
	var t func(int) time.Duration
	if timed {
		if t = halvingTiming(s); t == nil {
			n = min(n, halvingMin)
		}
	}
	for ; n > 1; n-- {
		evals, dur := halvingCost(n, rungs, t)
		if (rem < 0 || evals <= rem) && (t == nil || dur <= left) {
			break
		}
	}
	return max(n, 1)
}

// halvingTiming estimates an evaluation's wall time from its runs, a fixed
// part (generation, compilation, warm-ups) plus a part per pass, fitted by
// least squares to this search's evaluations; nil before any.
func halvingTiming(s *Session) func(int) time.Duration {
	var n, sx, sy, sxx, sxy float64
	prev := time.Duration(0)
	for _, tr := range s.trials {
		x, y := float64(tr.Runs), float64(tr.Elapsed-prev)
		prev = tr.Elapsed
		n++
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	if n == 0 {
		return nil
	}
	var a, b float64
	if den := n*sxx - sx*sx; den > 1e-9 {
		b = (n*sxy - sx*sy) / den
		a = (sy - b*sx) / n
	}
	if a < 0 || b < 0 || n*sxx-sx*sx <= 1e-9 {
		// One runs value only, or a fit that makes no sense: time
		// proportional to runs, which overestimates longer evaluations
		// when the fixed part dominates (a smaller bracket, not a late
		// one).
		a, b = 0, sy/sx
	}
	return func(runs int) time.Duration { return time.Duration(a + b*float64(runs)) }
}

// halvingBracket runs one bracket over sample with the given rungs. false:
// the search stopped.
func halvingBracket(s *Session, sample []int, rungs []int) bool {
	surv := slices.Clone(sample)
	score := map[int]float64{}
	for k, runs := range rungs {
		if k > 0 {
			keep := (len(surv) + halvingEta - 1) / halvingEta
			slices.SortStableFunc(surv, func(a, b int) int { return cmp.Compare(score[a], score[b]) })
			// Failures are never worth more passes.
			for len(surv) > 0 && math.IsInf(score[surv[len(surv)-1]], 1) {
				surv = surv[:len(surv)-1]
			}
			surv = surv[:min(keep, len(surv))]
			if len(surv) == 0 {
				return true
			}
		}
		s.Prefetch(surv)
		for _, i := range surv {
			r, ok := s.EvalRuns(i, runs)
			if !ok {
				return false
			}
			score[i] = r.Score
		}
	}
	return true
}
