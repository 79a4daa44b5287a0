package autotune

import (
	"math"
	"slices"
)

// coordinate is coordinate descent: from the current point, it searches one
// dimension at a time among the valid points that differ only there (a
// line search along an ordered axis, every value of a categorical one),
// moves to the best, and sweeps the dimensions again until a sweep improves
// nothing; then it restarts from a random unseen point. Plan parameters are
// mostly separable (a block size's best value barely depends on an unrelated
// threshold), which is what makes this cheap and good.
type coordinate struct{}

// coordRestartSamples random points are measured before each descent that
// has no start point, the best of them starting it: 8 took the worst gap on
// the large space's recording (3% of the evaluations, 10 seeds) from 75%
// to the value in docs/tuning.md.
const coordRestartSamples = 8

func (coordinate) Name() string { return "coordinate" }

func (coordinate) Search(s *Session) error {
	c := s.Cands()
	cd := &coordSearch{s: s, c: c, mem: make([]int, len(c.Dims)), memScore: make([]float64, len(c.Dims))}
	for d, dim := range c.Dims {
		cd.memScore[d] = math.Inf(1)
		// With no point seen yet where a dimension applies, the middle of
		// an ordered axis is the least committal guess.
		if dim.Ordered {
			cd.mem[d] = len(dim.Values) / 2
		}
	}
	// Begin at the best start point: the store's best or the space's
	// default is a better first guess than a random one.
	cur, curScore := -1, math.Inf(1)
	for _, i := range s.Start() {
		r, ok := cd.eval(i)
		if !ok {
			return nil
		}
		if cur < 0 || r.Score < curScore {
			cur, curScore = i, r.Score
		}
	}
	for {
		if cur < 0 {
			// A descent from one random point can end in a poor basin (75%
			// worst gap on the large recording): it starts from the best of
			// a few random points instead.
			unseen := strategyUnseen(s)
			if len(unseen) == 0 {
				return nil
			}
			curScore = math.Inf(1)
			for range min(coordRestartSamples, len(unseen)) {
				k := s.Rand().IntN(len(unseen))
				i := unseen[k]
				unseen[k] = unseen[len(unseen)-1]
				unseen = unseen[:len(unseen)-1]
				r, ok := cd.eval(i)
				if !ok {
					return nil
				}
				if cur < 0 || r.Score < curScore {
					cur, curScore = i, r.Score
				}
			}
		}
		if !cd.descend(cur) {
			return nil
		}
		cur = -1
	}
}

type coordSearch struct {
	s *Session
	c *Candidates
	// mem is, per dimension, its value in the best point measured where
	// it applies (memScore that point's score): when a move makes a
	// dimension apply, the neighbour that takes this value is preferred,
	// as the best guess of it so far.
	mem      []int
	memScore []float64
}

// descend runs coordinate descent from candidate cur until a sweep over
// every dimension moves nowhere. false: the search stopped.
func (cd *coordSearch) descend(cur int) bool {
	r, ok := cd.eval(cur)
	if !ok {
		return false
	}
	score := r.Score
	for {
		moved := false
		for d := range cd.c.Dims {
			next, nextScore, ok := cd.dim(cur, score, d, true)
			if !ok {
				return false
			}
			// Strictly better only, so descent cannot cycle.
			if nextScore < score {
				cur, score, moved = next, nextScore, true
			}
		}
		if !moved {
			return true
		}
	}
}

// eval measures candidate i and remembers its values if it is the best
// point measured for them.
func (cd *coordSearch) eval(i int) (Result, bool) {
	r, ok := cd.s.Eval(i)
	if !ok || !r.OK {
		return r, ok
	}
	for d, v := range cd.c.Points[i] {
		if d < len(cd.mem) && v >= 0 && r.Score < cd.memScore[d] {
			cd.mem[d], cd.memScore[d] = v, r.Score
		}
	}
	return r, ok
}

// neighbours returns, per value of dimension d other than cur's, the one
// valid point that best stands for "cur with d changed": points that also
// differ elsewhere only where a dimension applies to one of the two (a
// parameter that appears or vanishes with the change). Among several it
// prefers the fewest changes, then the remembered values of dimensions
// that start to apply, then the lowest index.
func (cd *coordSearch) neighbours(cur, d int) map[int]int {
	p := cd.c.Points[cur]
	type rank struct{ diff, dist, idx int }
	best := map[int]rank{}
	for j, q := range cd.c.Points {
		if j == cur || len(q) != len(p) || q[d] == p[d] {
			continue
		}
		diff, dist, ok := 0, 0, true
		for e := range p {
			if e == d || q[e] == p[e] {
				continue
			}
			if q[e] != -1 && p[e] != -1 {
				ok = false
				break
			}
			diff++
			if p[e] == -1 {
				// Dimension e starts to apply: how far from memory.
				if cd.c.Dims[e].Ordered {
					dist += coordAbs(q[e] - cd.mem[e])
				} else if q[e] != cd.mem[e] {
					dist++
				}
			}
		}
		if !ok {
			continue
		}
		r := rank{diff, dist, j}
		if b, have := best[q[d]]; !have || r.diff < b.diff || r.diff == b.diff && r.dist < b.dist {
			best[q[d]] = r
		}
	}
	out := make(map[int]int, len(best))
	for v, r := range best {
		out[v] = r.idx
	}
	return out
}

// dim searches dimension d around cur (score curScore) and returns the best
// point it measured, cur itself if none is better. false: stopped. With
// nested, a neighbour that makes dimensions apply which did not at cur (a
// strategy variant and its own parameters) is judged after a search of
// those dimensions from it: one arbitrary setting of its parameters would
// misjudge the variant, and descent could never reach its good settings.
func (cd *coordSearch) dim(cur int, curScore float64, d int, nested bool) (int, float64, bool) {
	s := cd.s
	nb := cd.neighbours(cur, d)
	if len(nb) == 0 {
		return cur, curScore, true
	}
	bestI, bestS := cur, curScore
	try := func(j int) (float64, bool) {
		if j == cur {
			return curScore, true
		}
		r, ok := cd.eval(j)
		if ok && r.Score < bestS {
			bestI, bestS = j, r.Score
		}
		return r.Score, ok
	}
	// jump tries neighbour j, then tunes what starts to apply there.
	jump := func(j int) bool {
		v, ok := try(j)
		if !ok || !nested {
			return ok
		}
		sub, subS := j, v
		for e, x := range cd.c.Points[j] {
			if x == -1 || cd.c.Points[cur][e] != -1 {
				continue
			}
			nj, ns, ok := cd.dim(sub, subS, e, false)
			if !ok {
				return false
			}
			if ns < subS {
				sub, subS = nj, ns
			}
		}
		if subS < bestS {
			bestI, bestS = sub, subS
		}
		return true
	}
	values := make([]int, 0, len(nb))
	for v := range nb {
		values = append(values, v)
	}
	slices.Sort(values) // map order is random; the search must not be
	pv := cd.c.Points[cur][d]
	if !cd.c.Dims[d].Ordered || pv == -1 {
		// A category, or an axis that does not apply yet: no order to
		// exploit from here, so try every value.
		is := make([]int, len(values))
		for k, v := range values {
			is[k] = nb[v]
		}
		s.Prefetch(is)
		for _, j := range is {
			if !jump(j) {
				return 0, 0, false
			}
		}
		return bestI, bestS, true
	}
	// Line search along the axis's values that have a neighbour, with cur
	// in its place; "does not apply" (-1) is tried on its own.
	axis := []int{pv}
	for _, v := range values {
		if v != -1 {
			axis = append(axis, v)
		}
	}
	slices.Sort(axis)
	line := make([]int, len(axis))
	at := 0
	for k, v := range axis {
		if v == pv {
			line[k], at = cur, k
		} else {
			line[k] = nb[v]
		}
	}
	if !cd.line(line, at, curScore, try) {
		return 0, 0, false
	}
	if j, ok := nb[-1]; ok {
		if !jump(j) {
			return 0, 0, false
		}
	}
	return bestI, bestS, true
}

// line searches the points of line (ordered by the axis's value) from
// position at: it probes both neighbours, walks in the improving direction
// with doubling steps while that improves, then narrows around the best
// with halving steps on both sides (a bisection of the bracket the walk
// found). try measures a point and reports false when the search stopped.
func (cd *coordSearch) line(line []int, at int, atScore float64, try func(int) (float64, bool)) bool {
	b, sb := at, atScore
	var side []int
	if at > 0 {
		side = append(side, line[at-1])
	}
	if at+1 < len(line) {
		side = append(side, line[at+1])
	}
	cd.s.Prefetch(side)
	dir := 0
	for _, q := range []int{at - 1, at + 1} {
		if q < 0 || q >= len(line) {
			continue
		}
		v, ok := try(line[q])
		if !ok {
			return false
		}
		if v < sb {
			b, sb, dir = q, v, q-at
		}
	}
	if dir == 0 {
		return true // a local optimum along this axis
	}
	step := 1
	for {
		step *= 2
		q := min(max(b+dir*step, 0), len(line)-1)
		if q == b {
			break
		}
		v, ok := try(line[q])
		if !ok {
			return false
		}
		if v >= sb {
			break // overshot: the optimum is between b and q
		}
		b, sb = q, v
	}
	for h := step / 2; h >= 1; h /= 2 {
		for _, sgn := range []int{-1, 1} {
			q := b + sgn*h
			if q < 0 || q >= len(line) {
				continue
			}
			v, ok := try(line[q])
			if !ok {
				return false
			}
			if v < sb {
				b, sb = q, v
			}
		}
	}
	return true
}

func coordAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
