package autotune

import (
	"cmp"
	"math"
	"slices"
)

// tpe is a tree-structured Parzen estimator: after a few random
// evaluations it splits what it measured into good (the fastest quarter)
// and bad (the rest, failures included), models each dimension's values
// under both, and measures next the unseen point whose values are most
// likely under good relative to bad. It learns which values matter from few
// measurements without assuming an axis is unimodal.
type tpe struct{}

func (tpe) Name() string { return "tpe" }

const (
	tpeGamma = 0.25 // fraction of OK observations that are good
	// tpeScored caps the unseen points scored per step; larger spaces are
	// scored on a random sample of this many.
	tpeScored = 5000
	tpeAhead  = 4 // runners-up hinted for prefetch
)

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
	// Random start-up: enough observations that "the best quarter" means
	// something, a tenth of the budget when it is large.
	startup := 5
	if rem := s.Remaining(); rem > 0 {
		startup = max(startup, rem/10)
	} else {
		startup = max(startup, min(len(c.Points)/20, 20))
	}
	for _, i := range s.Start() {
		if !eval(i) {
			return nil
		}
	}
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
		// Shuffled, so equal scores are broken at random.
		s.Rand().Shuffle(len(unseen), func(a, b int) { unseen[a], unseen[b] = unseen[b], unseen[a] })
		unseen = unseen[:min(len(unseen), tpeScored)]
		if !m.fit(s, obs) {
			// Nothing OK yet: nothing to learn from.
			if !eval(unseen[s.Rand().IntN(len(unseen))]) {
				return nil
			}
			continue
		}
		// Measure the unseen point most likely good relative to bad. (TPE
		// proper draws a few dozen candidates from the good density and
		// takes their best; scoring them all did better on the synthetic
		// recording at every budget tried, and costs nothing here.)
		type scored struct {
			i int
			v float64
		}
		ranked := make([]scored, len(unseen))
		for k, i := range unseen {
			ranked[k] = scored{i, m.score(c.Points[i])}
		}
		slices.SortStableFunc(ranked, func(a, b scored) int { return cmp.Compare(b.v, a.v) })
		ahead := make([]int, 0, tpeAhead)
		for _, r := range ranked[:min(tpeAhead, len(ranked))] {
			ahead = append(ahead, r.i)
		}
		s.Prefetch(ahead)
		if !eval(ranked[0].i) {
			return nil
		}
	}
}

// tpeModel holds, per dimension, the log ratio of a value's density under
// good to that under bad; slot 0 is "does not apply" (-1), slot v+1 value v.
type tpeModel struct {
	c *Candidates
	// possible marks the slots some point uses: the prior spreads over
	// those only, so impossible values take no mass.
	possible [][]bool
	ratio    [][]float64
	good     [][]float64
	bad      [][]float64
}

func newTPEModel(c *Candidates) *tpeModel {
	m := &tpeModel{c: c}
	n := len(c.Dims)
	m.possible = make([][]bool, n)
	m.ratio = make([][]float64, n)
	m.good = make([][]float64, n)
	m.bad = make([][]float64, n)
	for d, dim := range c.Dims {
		k := len(dim.Values) + 1
		m.possible[d] = make([]bool, k)
		m.ratio[d] = make([]float64, k)
		m.good[d] = make([]float64, k)
		m.bad[d] = make([]float64, k)
	}
	for _, p := range c.Points {
		for d, v := range p {
			if d < n && v >= -1 && v+1 < len(m.possible[d]) {
				m.possible[d][v+1] = true
			}
		}
	}
	return m
}

// fit rebuilds the ratios from the observations; false when none is OK.
func (m *tpeModel) fit(s *Session, obs []int) bool {
	var ok []int
	var failed []int
	for _, i := range obs {
		if v, _ := s.known(i); math.IsInf(v, 1) {
			failed = append(failed, i)
		} else {
			ok = append(ok, i)
		}
	}
	if len(ok) == 0 {
		return false
	}
	slices.SortStableFunc(ok, func(a, b int) int {
		va, _ := s.known(a)
		vb, _ := s.known(b)
		return cmp.Compare(va, vb)
	})
	nGood := max(1, int(math.Ceil(tpeGamma*float64(len(ok)))))
	for d := range m.c.Dims {
		clear(m.good[d])
		clear(m.bad[d])
	}
	for k, i := range ok {
		if k < nGood {
			m.add(m.good, m.c.Points[i])
		} else {
			m.add(m.bad, m.c.Points[i])
		}
	}
	for _, i := range failed {
		m.add(m.bad, m.c.Points[i])
	}
	nBad := len(ok) - nGood + len(failed)
	for d := range m.c.Dims {
		slots := 0
		for _, p := range m.possible[d] {
			if p {
				slots++
			}
		}
		// A prior of one observation's weight spread over the possible
		// values keeps unseen values alive and the logs finite.
		prior := 1 / float64(max(slots, 1))
		for v := range m.ratio[d] {
			if !m.possible[d][v] {
				continue
			}
			pg := (m.good[d][v] + prior) / float64(nGood+1)
			pb := (m.bad[d][v] + prior) / float64(nBad+1)
			m.ratio[d][v] = math.Log(pg / pb)
		}
	}
	return true
}

// add spreads one observation's unit weight over each dimension's values:
// all on its value for a category or -1, over a Gaussian of neighbouring
// values for an ordered axis, whose neighbours tend to perform alike.
func (m *tpeModel) add(w [][]float64, p Point) {
	for d, v := range p {
		if d >= len(w) || v < -1 || v+1 >= len(w[d]) {
			continue
		}
		dim := m.c.Dims[d]
		if v == -1 || !dim.Ordered {
			w[d][v+1]++
			continue
		}
		sigma := max(1, float64(len(dim.Values))/10)
		reach := int(math.Ceil(2 * sigma))
		var ks [32]float64
		kern := ks[:0]
		total := 0.0
		for off := -reach; off <= reach; off++ {
			u := v + off
			k := 0.0
			if u >= 0 && u < len(dim.Values) && m.possible[d][u+1] {
				k = math.Exp(-float64(off*off) / (2 * sigma * sigma))
			}
			kern = append(kern, k)
			total += k
		}
		for off := -reach; off <= reach; off++ {
			if k := kern[off+reach]; k > 0 {
				w[d][v+off+1] += k / total
			}
		}
	}
}

// score is the log of the point's good/bad density ratio, dimensions taken
// as independent.
func (m *tpeModel) score(p Point) float64 {
	t := 0.0
	for d, v := range p {
		if d < len(m.ratio) && v >= -1 && v+1 < len(m.ratio[d]) {
			t += m.ratio[d][v+1]
		}
	}
	return t
}
