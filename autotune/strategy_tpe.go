package autotune

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// tpe is a tree-structured Parzen estimator (Bergstra et al., "Algorithms
// for Hyper-Parameter Optimization", NeurIPS 2011): after a few random
// evaluations it splits what it measured into good (the fastest few) and
// bad (the rest, failures included), and fits two densities over the
// space, l(x) on the good and g(x) on the bad. Each step draws candidates
// from l among the unseen points and measures the one whose l(x)/g(x) is
// largest. The densities follow the space's tree (Dim.Parent): an axis is
// modelled per value of its parent (a class slot's width per strategy, a
// cut only where there are two classes), from the observations where it
// applies, so a branch's parameters are learnt from that branch alone and
// an axis that does not apply adds nothing to a point's score.
type tpe struct{}

func (tpe) Name() string { return "tpe" }

const (
	// tpeGood is the share of OK observations that are good, and
	// tpeGoodMax its most (Optuna's default split: a tenth, at most 25):
	// few enough that l follows the best region, not the average one.
	tpeGood    = 0.10
	tpeGoodMax = 25
	// tpeCandidates are drawn from l per step (hyperopt's default number
	// of expected-improvement candidates).
	tpeCandidates = 24
	// tpePrior is the weight of the uniform prior of each density, in
	// observations: it keeps unseen values alive and every log finite.
	tpePrior    = 8.0
	tpeSigma    = 10.0
	tpeStartDiv = 10
)

const tpeAhead = 4 // runners-up hinted for prefetch

func (tpe) Search(s *Session) error {
	c := s.Cands()
	m := newTPEModel(c)
	var obs []int // full-fidelity observations, in order
	eval := func(i int) bool {
		if s.Seen(i) {
			return true
		}
		if _, ok := s.Eval(i); !ok {
			return false
		}
		obs = append(obs, i)
		return true
	}
	for _, i := range s.Start() {
		if !eval(i) {
			return nil
		}
	}
	startup := tpeStartup(s)
	for len(obs) < startup {
		unseen := strategyUnseen(s)
		if len(unseen) == 0 {
			return nil
		}
		if !eval(unseen[s.Rand().IntN(len(unseen))]) {
			return nil
		}
	}
	for {
		unseen := strategyUnseen(s)
		if len(unseen) == 0 {
			return nil
		}
		if !m.fit(fullObs(s, obs)) {
			// Nothing OK yet: nothing to learn from.
			if !eval(unseen[s.Rand().IntN(len(unseen))]) {
				return nil
			}
			continue
		}
		ranked := m.propose(unseen, s.Rand(), tpeCandidates)
		s.Prefetch(ranked[:min(tpeAhead, len(ranked))])
		if !eval(ranked[0]) {
			return nil
		}
	}
}

// tpeStartup is how many random observations precede the model: enough
// that "the best few" means something, a tenth of the evaluations when the
// budget is large.
func tpeStartup(s *Session) int {
	if rem := s.Remaining(); rem > 0 {
		return max(5, rem/10)
	}
	return max(5, min(len(s.Cands().Points)/20, 20))
}

// tpeModel holds the two densities, one node per (axis, value of its
// parent): weights over the axis's value slots (slot 0 is -1, "does not
// apply", which only a root axis uses as a value; slot v+1 is value v).
type tpeModel struct {
	c      *Candidates
	parent []int // per axis, its parent axis; -1 for a root
	// possible[d][k][v]: some point has value slot v on axis d under
	// parent slot k; the prior spreads over those only.
	possible [][][]bool
	good     [][][]float64
	bad      [][][]float64
	nGood    [][]float64 // weight of good observations per node
	nBad     [][]float64
	logL     [][][]float64 // log l and log g per node and slot, after fit
	logG     [][][]float64
}

func newTPEModel(c *Candidates) *tpeModel {
	n := len(c.Dims)
	m := &tpeModel{c: c, parent: make([]int, n)}
	index := make(map[string]int, n)
	for d, dim := range c.Dims {
		index[dim.Name] = d
	}
	for d, dim := range c.Dims {
		m.parent[d] = -1
		if p, ok := index[dim.Parent]; ok && dim.Parent != "" && p != d {
			m.parent[d] = p
		}
	}
	grid := func() [][][]float64 { return make([][][]float64, n) }
	m.possible = make([][][]bool, n)
	m.good, m.bad, m.logL, m.logG = grid(), grid(), grid(), grid()
	m.nGood, m.nBad = make([][]float64, n), make([][]float64, n)
	for d, dim := range c.Dims {
		ctxs := 1
		if p := m.parent[d]; p >= 0 {
			ctxs = len(c.Dims[p].Values) + 1
		}
		slots := len(dim.Values) + 1
		m.possible[d] = make([][]bool, ctxs)
		m.good[d], m.bad[d] = make([][]float64, ctxs), make([][]float64, ctxs)
		m.logL[d], m.logG[d] = make([][]float64, ctxs), make([][]float64, ctxs)
		m.nGood[d], m.nBad[d] = make([]float64, ctxs), make([]float64, ctxs)
		for k := range ctxs {
			m.possible[d][k] = make([]bool, slots)
			m.good[d][k], m.bad[d][k] = make([]float64, slots), make([]float64, slots)
			m.logL[d][k], m.logG[d][k] = make([]float64, slots), make([]float64, slots)
		}
	}
	for _, p := range c.Points {
		for d := range c.Dims {
			if k, v, ok := m.node(p, d); ok {
				m.possible[d][k][v] = true
			}
		}
	}
	return m
}

// node is where point p sits on axis d: the parent's slot k and its own
// slot v; false when the axis does not apply to p (or p is malformed).
func (m *tpeModel) node(p Point, d int) (k, v int, ok bool) {
	if d >= len(p) || p[d] < -1 || p[d] >= len(m.c.Dims[d].Values) {
		return 0, 0, false
	}
	par := m.parent[d]
	if par < 0 {
		return 0, p[d] + 1, true
	}
	if p[d] < 0 || par >= len(p) || p[par] < -1 || p[par] >= len(m.c.Dims[par].Values) {
		return 0, 0, false
	}
	return p[par] + 1, p[d] + 1, true
}

// tpeObs is an observation: a point and its score (+Inf for a failure).
type tpeObs struct {
	i int
	v float64
}

// fullObs are the observations of obs known at full fidelity.
func fullObs(s *Session, obs []int) []tpeObs {
	out := make([]tpeObs, 0, len(obs))
	for _, i := range obs {
		v, _ := s.known(i)
		out = append(out, tpeObs{i, v})
	}
	return out
}

// fit rebuilds both densities from the observations; false when none is OK.
func (m *tpeModel) fit(all []tpeObs) bool {
	var ok []tpeObs
	var failed []int
	for _, o := range all {
		if math.IsInf(o.v, 1) {
			failed = append(failed, o.i)
		} else {
			ok = append(ok, o)
		}
	}
	if len(ok) == 0 {
		return false
	}
	slices.SortStableFunc(ok, func(a, b tpeObs) int { return cmp.Compare(a.v, b.v) })
	nGood := min(max(1, int(math.Ceil(tpeGood*float64(len(ok))))), tpeGoodMax)
	for d := range m.c.Dims {
		for k := range m.good[d] {
			clear(m.good[d][k])
			clear(m.bad[d][k])
		}
		clear(m.nGood[d])
		clear(m.nBad[d])
	}
	for j, o := range ok {
		if j < nGood {
			m.add(m.good, m.nGood, m.c.Points[o.i])
		} else {
			m.add(m.bad, m.nBad, m.c.Points[o.i])
		}
	}
	for _, i := range failed {
		m.add(m.bad, m.nBad, m.c.Points[i])
	}
	for d := range m.c.Dims {
		for k := range m.possible[d] {
			slots := 0
			for _, p := range m.possible[d][k] {
				if p {
					slots++
				}
			}
			prior := tpePrior / float64(max(slots, 1))
			for v, p := range m.possible[d][k] {
				if !p {
					continue
				}
				m.logL[d][k][v] = math.Log((m.good[d][k][v] + prior) / (m.nGood[d][k] + tpePrior))
				m.logG[d][k][v] = math.Log((m.bad[d][k][v] + prior) / (m.nBad[d][k] + tpePrior))
			}
		}
	}
	return true
}

// add spreads one observation's unit weight over each applicable axis's
// values in its node: all on its value for a category or a root's -1,
// over a Gaussian of neighbouring values for an ordered axis, whose
// neighbours tend to perform alike.
func (m *tpeModel) add(w [][][]float64, n [][]float64, p Point) {
	for d, dim := range m.c.Dims {
		k, v, ok := m.node(p, d)
		if !ok {
			continue
		}
		n[d][k]++
		if v == 0 || !dim.Ordered {
			w[d][k][v]++
			continue
		}
		poss := m.possible[d][k]
		sigma := max(1, float64(len(dim.Values))/10)
		reach := int(math.Ceil(2 * sigma))
		total := 0.0
		for u := max(1, v-reach); u <= min(len(poss)-1, v+reach); u++ {
			if poss[u] {
				total += math.Exp(-float64((u-v)*(u-v)) / (2 * sigma * sigma))
			}
		}
		for u := max(1, v-reach); u <= min(len(poss)-1, v+reach); u++ {
			if poss[u] {
				w[d][k][u] += math.Exp(-float64((u-v)*(u-v))/(2*sigma*sigma)) / total
			}
		}
	}
}

// logs is log l(p) and log g(p): the sums over the axes that apply to p,
// each axis's density taken in its parent's node.
func (m *tpeModel) logs(p Point) (l, g float64) {
	for d := range m.c.Dims {
		if k, v, ok := m.node(p, d); ok {
			l += m.logL[d][k][v]
			g += m.logG[d][k][v]
		}
	}
	return l, g
}

// drawL draws n distinct points of pool in proportion to l (the Gumbel
// top-n trick: the n largest log l(x) + Gumbel noise are a draw without
// replacement), with each one's log l(x)/g(x).
func (m *tpeModel) drawL(pool []int, rng *rand.Rand, n int) (is []int, ratio []float64) {
	type cand struct {
		i          int
		key, ratio float64
	}
	cs := make([]cand, len(pool))
	for k, i := range pool {
		l, g := m.logs(m.c.Points[i])
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		cs[k] = cand{i: i, key: l - math.Log(-math.Log(u)), ratio: l - g}
	}
	slices.SortFunc(cs, func(a, b cand) int { return cmp.Compare(b.key, a.key) })
	for _, c := range cs[:min(n, len(cs))] {
		is = append(is, c.i)
		ratio = append(ratio, c.ratio)
	}
	return is, ratio
}

// propose draws n distinct candidates from the unseen points in proportion
// to l and returns them best first by l(x)/g(x).
func (m *tpeModel) propose(unseen []int, rng *rand.Rand, n int) []int {
	is, ratio := m.drawL(unseen, rng, n)
	order := make([]int, len(is))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ratio[b], ratio[a]) })
	out := make([]int, len(is))
	for k, j := range order {
		out[k] = is[j]
	}
	return out
}
