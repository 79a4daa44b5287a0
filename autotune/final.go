package autotune

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// FinalistsDefault is how many of a search's best candidates are measured
// again, interleaved, before a winner is chosen: enough to catch a lucky
// measurement of the first or second without tripling the tune's tail.
const FinalistsDefault = 3

// Interleaver is implemented by evaluators that can time several
// candidates in rounds, one pass of each per round (A B C A B C ...), so
// drift (clocks, temperature, other work on the GPU) falls on all of them
// alike instead of on whichever was measured at the wrong moment.
type Interleaver interface {
	// Interleave verifies each candidate of is, then times rounds rounds;
	// its results are in the order of is. Its error is only for what must
	// stop the tune, as Evaluate's.
	Interleave(is []int, rounds int) ([]Result, error)
}

// Finalist is a candidate measured again in the interleaved rounds.
type Finalist struct {
	Index  int
	Search float64 // its median in the search
	Result Result  // the interleaved measurement
}

// Final is the interleaved round's verdict.
type Final struct {
	Finalists []Finalist // in the search's order, best first
	Best      int        // the lowest interleaved median, -1 if none is OK
	Score     float64
	// Changed: the round's winner is not the search's best.
	Changed bool
}

// Finalists are the k best distinct candidates that out measured OK at
// full fidelity (runs passes), best first (ties by index).
func Finalists(out Outcome, runs, k int) []int {
	best := map[int]float64{}
	for _, t := range out.Trials {
		if t.Runs < runs || !t.Result.OK {
			continue
		}
		if s, ok := best[t.Index]; !ok || t.Result.Score < s {
			best[t.Index] = t.Result.Score
		}
	}
	is := make([]int, 0, len(best))
	for i := range best {
		is = append(is, i)
	}
	slices.SortFunc(is, func(a, b int) int {
		return cmp.Or(cmp.Compare(best[a], best[b]), cmp.Compare(a, b))
	})
	return is[:min(k, len(is))]
}

// Remeasure times out's k best candidates again in runs interleaved rounds
// and chooses the lowest interleaved median (ties go to the search's
// order). Fewer than two finalists leave nothing to compare: the search's
// best stands, unmeasured.
func Remeasure(ev Interleaver, out Outcome, runs, k int) (Final, error) {
	f := Final{Best: out.Best, Score: out.Score}
	is := Finalists(out, runs, k)
	if len(is) < 2 {
		return f, nil
	}
	rs, err := ev.Interleave(is, runs)
	if err != nil {
		return f, err
	}
	if len(rs) != len(is) {
		return f, fmt.Errorf("tune: interleaving %d finalists gave %d results", len(is), len(rs))
	}
	score := map[int]float64{}
	for _, t := range out.Trials {
		if t.Runs >= runs && t.Result.OK {
			if s, ok := score[t.Index]; !ok || t.Result.Score < s {
				score[t.Index] = t.Result.Score
			}
		}
	}
	f.Best, f.Score = -1, math.Inf(1)
	for k, i := range is {
		r := rs[k]
		if !r.OK || math.IsNaN(r.Score) {
			r.OK, r.Score = false, math.Inf(1)
		}
		f.Finalists = append(f.Finalists, Finalist{Index: i, Search: score[i], Result: r})
		if r.OK && r.Score < f.Score {
			f.Best, f.Score = i, r.Score
		}
	}
	f.Changed = f.Best != out.Best
	return f, nil
}
